//! Volatile and MMIO accesses. Neither is a synchronization tool: use [`Atomic`](crate::atomic::Atomic)
//! and [`fence`](crate::fence::fence()) to order memory between threads.
//!
//! - `ld.volatile` / `st.volatile` ([`read_volatile`], [`write_volatile`]): in the PTX memory
//!   model a volatile access is a relaxed access at system scope that the compiler may not
//!   remove or merge. What a `volatile` in CUDA C++ is.
//! - `ld.mmio.relaxed.sys` / `st.mmio.relaxed.sys` ([`read_mmio`], [`write_mmio`], PTX ISA 8.2,
//!   sm_70+): the number of accesses is preserved exactly, for memory-mapped device registers
//!   where a read or write has side effects.
//!
//! ```
//! use ptx_sync::volatile::{read_mmio, read_volatile, write_mmio, write_volatile};
//!
//! let mut status = 0u32;
//! let mut doorbell = 0u64;
//! unsafe {
//!     write_volatile(&mut status, 3); // st.volatile.b32
//!     assert_eq!(read_volatile(&status), 3); // ld.volatile.b32
//!     write_mmio(&mut doorbell, 1); // st.mmio.relaxed.sys.b64: exactly one write
//!     assert_eq!(read_mmio(&doorbell), 1); // ld.mmio.relaxed.sys.b64
//! }
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`volatile::read_volatile`](crate::volatile::read_volatile), [`volatile::write_volatile`](crate::volatile::write_volatile) ([`volatile::Word`](crate::volatile::Word): `u32 i32 f32 u64 i64 f64`) | `ld.volatile.bN`, `st.volatile.bN` | a `volatile` access |
//! | [`volatile::read_mmio`](crate::volatile::read_mmio), [`volatile::write_mmio`](crate::volatile::write_mmio) | `ld.mmio.relaxed.sys.bN`, `st.mmio.relaxed.sys.bN` | inline PTX `ld.mmio` / `st.mmio` |

use crate::backend::volatile as backend;

mod sealed {
    pub trait Sealed {}
}

/// A type that volatile and MMIO accesses move: `u32`, `i32`, `u64`, `i64`, `f32`, `f64`.
pub trait Word: sealed::Sealed + Copy {
    #[doc(hidden)]
    unsafe fn read(p: *const Self, mmio: bool) -> Self;
    #[doc(hidden)]
    unsafe fn write(p: *mut Self, v: Self, mmio: bool);
}

macro_rules! word {
    ($t:ty, $bits:ty, $read:ident, $write:ident) => {
        impl sealed::Sealed for $t {}
        impl Word for $t {
            #[inline(always)]
            unsafe fn read(p: *const Self, mmio: bool) -> Self {
                // SAFETY: the caller's contract; `$t` and `$bits` have one size.
                <$t>::from_ne_bytes(unsafe { backend::$read(p.cast(), mmio) }.to_ne_bytes())
            }

            #[inline(always)]
            unsafe fn write(p: *mut Self, v: Self, mmio: bool) {
                let v = <$bits>::from_ne_bytes(v.to_ne_bytes());
                // SAFETY: the caller's contract; `$t` and `$bits` have one size.
                unsafe { backend::$write(p.cast(), v, mmio) }
            }
        }
    };
}

word!(u32, u32, read32, write32);
word!(i32, u32, read32, write32);
word!(f32, u32, read32, write32);
word!(u64, u64, read64, write64);
word!(i64, u64, read64, write64);
word!(f64, u64, read64, write64);

/// `ld.volatile.<b32|b64>`: a read the compiler keeps, relaxed at system scope.
///
/// # Safety
/// `p` is valid for reads and aligned.
#[inline(always)]
pub unsafe fn read_volatile<T: Word>(p: *const T) -> T {
    T::read(p, false)
}

/// `st.volatile.<b32|b64>`: a write the compiler keeps, relaxed at system scope.
///
/// # Safety
/// `p` is valid for writes and aligned.
#[inline(always)]
pub unsafe fn write_volatile<T: Word>(p: *mut T, v: T) {
    T::write(p, v, false)
}

/// `ld.mmio.relaxed.sys.<b32|b64>`: exactly one read, for device registers.
///
/// # Safety
/// `p` is valid for reads and aligned.
#[inline(always)]
pub unsafe fn read_mmio<T: Word>(p: *const T) -> T {
    T::read(p, true)
}

/// `st.mmio.relaxed.sys.<b32|b64>`: exactly one write, for device registers.
///
/// # Safety
/// `p` is valid for writes and aligned.
#[inline(always)]
pub unsafe fn write_mmio<T: Word>(p: *mut T, v: T) {
    T::write(p, v, true)
}
