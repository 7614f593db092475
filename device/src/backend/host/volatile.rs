//! Volatile words on the host: `core::ptr`'s volatile accesses (there is no MMIO form).

macro_rules! word {
    ($read:ident, $write:ident, $t:ty) => {
        /// # Safety
        /// `p` is valid for a read of an aligned word.
        pub(crate) unsafe fn $read(p: *const $t, _mmio: bool) -> $t {
            // SAFETY: the caller's contract.
            unsafe { core::ptr::read_volatile(p) }
        }

        /// # Safety
        /// `p` is valid for a write of an aligned word.
        pub(crate) unsafe fn $write(p: *mut $t, v: $t, _mmio: bool) {
            // SAFETY: the caller's contract.
            unsafe { core::ptr::write_volatile(p, v) }
        }
    };
}
word!(read32, write32, u32);
word!(read64, write64, u64);
