//! `Shared<T>`: a location in the block's shared memory by its `.shared` address (GPU only).
//!
//! A generic pointer into shared memory (what `block::dynamic_shared_memory()` returns) makes
//! every access a generic `ld`/`st`, which the hardware must first resolve to a state space.
//! CUDA C++ knows a `__shared__` array's space at compile time and emits `ld.shared`/
//! `st.shared`; `Shared<T>` gives Rust kernels the same: a 32-bit shared-window address whose
//! `read`/`write` are `ld.shared.bN`/`st.shared.bN`. These are plain (weak) accesses, like a
//! `__shared__` array's: order them with `block::sync()` or an atomic, as in CUDA C++.

use core::marker::PhantomData;

/// A `T` in the block's shared memory, addressed in the `.shared` window.
#[derive(Debug)]
pub struct Shared<T> {
    addr: u32,
    _t: PhantomData<*mut T>,
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Shared<T> {}

impl Shared<u8> {
    /// The start of the launch's dynamic shared memory (16-byte aligned).
    ///
    /// PTX: `mov.u32` of the module's `.extern .shared` array (its `.shared` address).
    #[inline(always)]
    pub fn dynamic() -> Shared<u8> {
        let addr: u32;
        // SAFETY: computes an address; reads no memory.
        unsafe {
            core::arch::asm!("mov.u32 {a}, ptx_sync_dynamic_smem;", a = out(reg32) addr,
                             options(nostack, nomem, pure))
        };
        Shared {
            addr,
            _t: PhantomData,
        }
    }
}

impl<T> Shared<T> {
    /// The shared location a generic pointer points to.
    ///
    /// PTX: `cvta.to.shared.u64` (truncated to the 32-bit `.shared` address).
    ///
    /// # Safety
    /// `p` points into this block's shared memory.
    #[inline(always)]
    pub unsafe fn from_generic(p: *mut T) -> Shared<T> {
        let a: u64;
        // SAFETY: computes an address; reads no memory.
        unsafe {
            // `readonly` rather than `nomem`: the operand is a pointer (it is only converted).
            core::arch::asm!("cvta.to.shared.u64 {a}, {p};", a = out(reg64) a, p = in(reg64) p,
                             options(nostack, readonly, pure))
        };
        Shared {
            addr: a as u32,
            _t: PhantomData,
        }
    }

    /// The location `n` elements further on (no check that it stays in bounds), as
    /// `pointer::add`.
    #[allow(clippy::should_implement_trait)] // named after `pointer::add`, not `ops::Add`
    #[inline(always)]
    pub fn add(self, n: usize) -> Shared<T> {
        Shared {
            addr: self
                .addr
                .wrapping_add((n * core::mem::size_of::<T>()) as u32),
            _t: PhantomData,
        }
    }

    /// The same address as a `U`.
    #[inline(always)]
    pub fn cast<U>(self) -> Shared<U> {
        Shared {
            addr: self.addr,
            _t: PhantomData,
        }
    }

    /// The `.shared` address.
    #[inline(always)]
    pub fn address(self) -> u32 {
        self.addr
    }

    /// The same location as a generic pointer (for `Atomic::from_ptr` and the primitives).
    ///
    /// PTX: `cvta.shared.u64`.
    #[inline(always)]
    pub fn generic(self) -> *mut T {
        let p: u64;
        // SAFETY: computes an address; reads no memory.
        unsafe {
            core::arch::asm!("cvt.u64.u32 {p}, {a};\n\tcvta.shared.u64 {p}, {p};",
                             p = out(reg64) p, a = in(reg32) self.addr,
                             options(nostack, nomem, pure))
        };
        p as *mut T
    }
}

macro_rules! shared_access {
    ($($t:ty, $bits:literal, $reg:ident);* $(;)?) => {$(
        impl Shared<$t> {
            #[doc = concat!("Reads the `", stringify!($t), "` (`ld.shared.b", $bits, "`).")]
            ///
            /// # Safety
            /// The location is in this block's shared memory, aligned, and not written by
            /// another thread without synchronization (a data race, as in CUDA C++).
            #[inline(always)]
            pub unsafe fn read(self) -> $t {
                let v: $t;
                // SAFETY: the caller's contract; `readonly`: reads memory, writes none, so it
                // is not moved across a barrier or atomic (those are memory clobbers).
                unsafe {
                    core::arch::asm!(concat!("ld.shared.b", $bits, " {v}, [{a}];"),
                                     v = out($reg) v, a = in(reg32) self.addr,
                                     options(nostack, readonly))
                };
                v
            }

            #[doc = concat!("Writes the `", stringify!($t), "` (`st.shared.b", $bits, "`).")]
            ///
            /// # Safety
            /// As [`read`](Self::read).
            #[inline(always)]
            pub unsafe fn write(self, v: $t) {
                // SAFETY: the caller's contract.
                unsafe {
                    core::arch::asm!(concat!("st.shared.b", $bits, " [{a}], {v};"),
                                     v = in($reg) v, a = in(reg32) self.addr,
                                     options(nostack))
                };
            }
        }
    )*};
}

shared_access!(
    u32, "32", reg32;
    i32, "32", reg32;
    f32, "32", reg32;
    u64, "64", reg64;
    i64, "64", reg64;
    f64, "64", reg64;
);
