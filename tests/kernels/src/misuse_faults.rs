//! Kernels of the fault cases (tests/src/cases/misuse_faults.rs): a kernel that traps, one that
//! panics, and one that writes through a pointer the host chooses (null, or an address nothing
//! is mapped at).

/// `trap` unless `control` is 1 (then it sets `*done = 1`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn misuse_fault_trap(control: u32, done: *mut u32) {
    if control != 1 {
        core::arch::nvptx::trap();
    }
    *done = 1;
}

/// Panics (the crate's panic handler traps) unless `control` is 1 (then it sets `*done = 1`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn misuse_fault_panic(control: u32, done: *mut u32) {
    if control != 1 {
        panic!("misuse_fault_panic: a kernel panicked on purpose");
    }
    *done = 1;
}

/// Writes `value` to `ptr` with a volatile store: the host passes a null or wild address, which
/// the kernel cannot know is bad (it arrives at run time), so the store is really issued.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn misuse_fault_write(ptr: *mut u32, value: u32) {
    core::ptr::write_volatile(ptr, value);
}
