//! `Shared<T>`: a location in the block's shared memory by its `.shared` address.
//!
//! A generic pointer into shared memory (what `block::dynamic_shared_memory()` returns) makes
//! every access a generic `ld`/`st`, which the hardware must first resolve to a state space.
//! CUDA C++ knows a `__shared__` array's space at compile time and emits `ld.shared`/
//! `st.shared`; `Shared<T>` gives Rust kernels the same: a 32-bit shared-window address whose
//! `read`/`write` are `ld.shared.bN`/`st.shared.bN`. These are plain (weak) accesses, like a
//! `__shared__` array's: order them with `block::sync()` or an atomic, as in CUDA C++.
//!
//! `Shared<T>` is a raw pointer in another address space: making one with [`add`](Shared::add)
//! or [`cast`](Shared::cast) is safe and checks nothing, so every access through it is
//! `unsafe`, as a `*mut T` dereference is. A `Shared<Atomic<T, S>>` has the atomic operations
//! in their `.shared::cta` form ([`crate::atomic::space`]). Typed shared variables, CUDA's
//! `__shared__ T x;`, are declared with [`shared!`](crate::shared!), whose
//! [`shared()`](crate::shared_static::SharedStatic::shared) is a `Shared<T>`.
//!
//! On the host backend (tests) a `Shared<T>` is an ordinary pointer: the same code runs there,
//! with `read`/`write` as plain reads and writes.
//!
//! ```
//! use ptx_sync::shared::Shared;
//!
//! ptx_sync::shared! { static TILE: [u32; 8]; }
//! let tile = TILE.shared(); // mov.u32 of the variable: its .shared address
//! unsafe {
//!     for i in 0..8 {
//!         tile.at(i).write(i as u32 * i as u32); // st.shared.b32
//!     }
//!     assert_eq!(tile.at(7).read(), 49); // ld.shared.b32
//!     // The same location from a generic pointer (cvta.to.shared.u64) and back.
//!     let third = Shared::from_generic(TILE.as_ptr().cast::<u32>().add(3));
//!     assert_eq!(third.read(), 9);
//!     assert_eq!(third.generic(), tile.at(3).generic());
//! }
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`shared!`](crate::shared!) (`static NAME: T;`), [`shared_static::SharedStatic`](crate::shared_static::SharedStatic): `shared`, `as_ptr`, `get`; [`shared::Shared<T>`](crate::shared::Shared): `read`, `write`, `at`, `add`, `cast`, `from_generic`, `generic` | `.shared .align A .b8 ptx_sync_shared_NAME_<hash>[N];` (`global_asm!`), `mov.u32` of it, `ld/st.shared.bN`, `cvta.shared.u64`; on the host an ordinary static | `__shared__ T NAME;` |

use crate::backend::shared as backend;
use core::marker::PhantomData;

/// A `T` in the block's shared memory, addressed in the `.shared` window (on the host
/// backend: an ordinary pointer).
pub struct Shared<T> {
    pub(crate) addr: backend::Addr,
    pub(crate) _t: PhantomData<*mut T>,
}

impl<T> core::fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Shared")
            .field(backend::DEBUG_FIELD, &self.addr)
            .field("_t", &self._t)
            .finish()
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Shared<T> {}

impl<T> Shared<T> {
    /// The shared location a generic pointer points to.
    ///
    /// PTX: `cvta.to.shared.u64` (truncated to the 32-bit `.shared` address). Debug builds
    /// first test the pointer with `isspacep.shared::cta` and trap with a message when it is
    /// not in this block's shared memory: `cvta.to.shared` of a global (or another block's)
    /// address is some other shared location, and every `.shared` access through it would
    /// silently touch that one. On the host backend: the pointer itself.
    ///
    /// # Safety
    /// `p` points into this block's shared memory.
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when `p` is not in this block's shared
    /// memory (`isspacep.shared::cta`); release builds and the host backend do not check.
    #[inline(always)]
    pub unsafe fn from_generic(p: *mut T) -> Shared<T> {
        Shared {
            addr: backend::from_generic(p.cast()),
            _t: PhantomData,
        }
    }

    /// The location `n` elements further on (no check that it stays in bounds), as
    /// `pointer::wrapping_add`.
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU (overflow checks), panics when `n * size_of::<T>()` overflows
    /// `usize`, where `pointer::wrapping_add` would wrap; release builds and the host backend wrap.
    #[allow(clippy::should_implement_trait)] // named after `pointer::add`, not `ops::Add`
    #[inline(always)]
    pub fn add(self, n: usize) -> Shared<T> {
        Shared {
            addr: backend::add::<T>(self.addr, n),
            _t: PhantomData,
        }
    }

    /// The same address as a `U` (no check of `U`'s alignment).
    #[inline(always)]
    pub fn cast<U>(self) -> Shared<U> {
        Shared {
            addr: self.addr,
            _t: PhantomData,
        }
    }

    /// The same location as a generic pointer (for `Atomic::from_ptr` and the primitives).
    ///
    /// PTX: `cvta.shared.u64`. On the host backend: the pointer.
    #[inline(always)]
    pub fn generic(self) -> *mut T {
        backend::generic(self.addr).cast()
    }
}

impl<T, const N: usize> Shared<[T; N]> {
    /// Element `i` of the array (`.shared` address + `i * size_of::<T>()`), as indexing
    /// `TILE[i]` of a `__shared__ T TILE[N]` does. Debug builds panic (on the GPU: trap) when
    /// `i >= N`; release builds do not check, as with [`add`](Shared::add).
    ///
    /// ```
    /// ptx_sync::shared! { static TILE: [u32; 4]; }
    /// let e = TILE.shared().at(3);
    /// assert_eq!(e.generic(), unsafe { TILE.as_ptr().cast::<u32>().add(3) });
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when `i >= N`; release
    /// builds do not check.
    #[inline(always)]
    #[track_caller]
    pub fn at(self, i: usize) -> Shared<T> {
        debug_check!(i < N, "Shared::at: index out of bounds");
        self.cast::<T>().add(i)
    }
}

macro_rules! shared_access {
    ($($t:ty, $bits:literal);* $(;)?) => {$(
        impl Shared<$t> {
            #[doc = concat!("Reads the `", stringify!($t), "` (`ld.shared.b", $bits, "`; on the host a plain read).")]
            ///
            /// # Safety
            /// The location is in this block's shared memory, aligned, and not written by
            /// another thread without synchronization (a data race, as in CUDA C++).
            #[inline(always)]
            pub unsafe fn read(self) -> $t {
                // SAFETY: the caller's contract.
                unsafe { backend::read::<$t>(self.addr) }
            }

            #[doc = concat!("Writes the `", stringify!($t), "` (`st.shared.b", $bits, "`; on the host a plain write).")]
            ///
            /// # Safety
            /// As [`read`](Self::read).
            #[inline(always)]
            pub unsafe fn write(self, v: $t) {
                // SAFETY: the caller's contract.
                unsafe { backend::write::<$t>(self.addr, v) }
            }
        }
    )*};
}

shared_access!(
    u32, "32";
    i32, "32";
    f32, "32";
    u64, "64";
    i64, "64";
    f64, "64";
);
