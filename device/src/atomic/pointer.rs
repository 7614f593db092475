//! `AtomicPtr<T, S>`: `core::sync::atomic::AtomicPtr`'s API at a scope. nvptx64 pointers are
//! 64-bit generic addresses, so every operation is the `.b64` instruction of `Atomic`'s
//! table, on the pointer itself (no cast through an integer: the host backend keeps the
//! pointer's provenance, as core's `AtomicPtr` does).

use super::update::update_api;
use crate::backend::on_target;
use crate::loom::{cell, Cell};
use crate::order;
use crate::scope::Scope;
use core::marker::PhantomData;
use core::sync::atomic::Ordering;

/// A `*mut T` whose operations synchronize at scope `S`: `load`, `store`, `swap`,
/// `compare_exchange(_weak)`, `fetch_update`, and [`wait`](Self::wait).
///
/// Same size and alignment as `*mut T` (8 bytes on the GPU). Publishing a pointer with a
/// release store (or RMW) and reading it with an acquire load makes the writes to the pointee
/// made before the publication visible to the reader, as with any release/acquire pair.
///
/// | operation | PTX |
/// |-----------|-----|
/// | `load` | `ld.<sem>.S.b64` (SeqCst: `fence.sc.S` first) |
/// | `store` | `st.<sem>.S.b64` (SeqCst: `fence.sc.S; st.relaxed.S.b64`) |
/// | `swap` | `atom.<sem>.S.exch.b64` |
/// | `compare_exchange(_weak)` | `atom.<sem>.S.cas.b64` (one merged `.sem`) |
/// | `fetch_update` | `ld.<fetch>.S.b64`, then `atom.<sem>.S.cas.b64` per attempt |
///
/// ```
/// use ptx_sync::{AtomicPtr, Gpu, Ordering::*};
/// use core::ptr::null_mut;
///
/// let mut slot = 5u32;
/// let p = AtomicPtr::<u32, Gpu>::new(null_mut());
/// p.store(&mut slot, Release); // st.release.gpu.b64
/// let seen = p.load(Acquire); // ld.acquire.gpu.b64
/// assert_eq!(unsafe { *seen }, 5);
/// ```
#[repr(transparent)]
pub struct AtomicPtr<T, S: Scope> {
    // The pointer (under `--cfg loom`, loom's model-checked pointer atomic).
    value: Cell<*mut T>,
    scope: PhantomData<S>,
}

// SAFETY: every access to `value` through `&self` is atomic; like core's `AtomicPtr`, the
// pointer is only a value here (dereferencing it is the user's `unsafe`).
unsafe impl<T, S: Scope> Sync for AtomicPtr<T, S> {}
// SAFETY: as above: moving the atomic moves a pointer value.
unsafe impl<T, S: Scope> Send for AtomicPtr<T, S> {}

/// `Debug` as core's `AtomicPtr`: the pointer, read with a `Relaxed` load (never dereferenced).
impl<T, S: Scope> core::fmt::Debug for AtomicPtr<T, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.load(Ordering::Relaxed), f)
    }
}

impl<T, S: Scope> AtomicPtr<T, S> {
    const_fn! {
    /// A new atomic holding `p`.
    #[inline(always)]
    pub fn new(p: *mut T) -> Self {
        AtomicPtr {
            value: cell(p),
            scope: PhantomData,
        }
    }
    }

    cfg_not_loom! {
    /// Views the pointer at `ptr` as an atomic, like core's `AtomicPtr::from_ptr`: for a
    /// kernel argument that points at a pointer-sized slot.
    ///
    /// # Safety
    /// `ptr` is valid for reads and writes, 8-byte aligned, for all of `'a`, and every
    /// concurrent access to it during `'a` is atomic.
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when `ptr` is not 8-byte
    /// aligned; release builds do not check.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut *mut T) -> &'a Self {
        debug_check!(ptr.is_aligned(), "AtomicPtr::from_ptr: misaligned pointer");
        // SAFETY: `repr(transparent)` over `UnsafeCell<*mut T>`; the caller guarantees the rest.
        unsafe { &*(ptr as *const Self) }
    }

    /// The address of the pointer slot (generic address space on the GPU).
    #[inline(always)]
    pub const fn as_ptr(&self) -> *mut *mut T {
        self.value.get()
    }
    }

    crate::backend::cfg_host! {
        /// The host atomic this one's operations run on (core's, or loom's under `--cfg loom`).
        #[inline(always)]
        fn host(&self) -> &crate::loom::atomic::AtomicPtr<T> {
            crate::loom::host::<*mut T>(&self.value)
        }
    }

    /// Loads the pointer. Orders: Relaxed, Acquire, SeqCst (Release and AcqRel panic).
    ///
    /// PTX: `ld.<sem>.<scope>.b64`; SeqCst adds a leading `fence.sc.<scope>`.
    ///
    /// # Panics
    ///
    /// When `order` is Release or AcqRel (as `core`'s `load`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, order: Ordering) -> *mut T {
        on_target!(sem = order::load(order);
            gpu: with_load_sem!(S, sem; ptx_ld!("b64", reg64, *mut T, self.as_ptr())),
            host: self.host().load(order))
    }

    /// Stores `p`. Orders: Relaxed, Release, SeqCst (Acquire and AcqRel panic).
    ///
    /// PTX: `st.<sem>.<scope>.b64`; SeqCst is `fence.sc.<scope>` + `st.relaxed`.
    ///
    /// # Panics
    ///
    /// When `order` is Acquire or AcqRel (as `core`'s `store`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, p: *mut T, order: Ordering) {
        on_target!(sem = order::store(order);
            gpu: with_store_sem!(S, sem; ptx_st!("b64", reg64, self.as_ptr(), p)),
            host: self.host().store(p, order))
    }

    /// Stores `p` and returns the previous pointer. Every order.
    ///
    /// PTX: `atom.<sem>.<scope>.exch.b64`.
    #[inline(always)]
    pub fn swap(&self, p: *mut T, order: Ordering) -> *mut T {
        on_target!(sem = order::rmw(order);
            gpu: with_rmw_sem!(S, sem; ptx_atom!("exch", "b64", reg64, *mut T, self.as_ptr(), p)),
            host: self.host().swap(p, order))
    }

    /// Stores `new` if the pointer is `current` (compared as addresses); `Ok(previous)` if it
    /// did, `Err(actual)` if not. Orders as for the integer [`Atomic::compare_exchange`](crate::atomic::Atomic::compare_exchange)
    /// (one merged `.sem`).
    ///
    /// PTX: `atom.<sem>.<scope>.cas.b64`.
    ///
    /// ```
    /// use ptx_sync::{AtomicPtr, Gpu, Ordering::*};
    /// let (mut a, mut b) = (1u32, 2u32);
    /// let (pa, pb): (*mut u32, *mut u32) = (&mut a, &mut b);
    /// let p = AtomicPtr::<u32, Gpu>::new(pa);
    /// assert_eq!(p.compare_exchange(pb, pb, AcqRel, Acquire), Err(pa));
    /// assert_eq!(p.compare_exchange(pa, pb, AcqRel, Acquire), Ok(pa));
    /// assert_eq!(p.load(Relaxed), pb);
    /// ```
    ///
    /// # Panics
    ///
    /// When `failure` is Release or AcqRel (as in `core`), in every build (on the GPU the thread
    /// prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        let prev: *mut T = on_target!(sem = order::compare_exchange(success, failure);
            gpu: with_rmw_sem!(S, sem; ptx_cas!("b64", reg64, *mut T, self.as_ptr(), current, new)),
            host: { match self.host().compare_exchange(current, new, success, failure) {
                        Ok(v) | Err(v) => v } });
        if prev == current {
            Ok(prev)
        } else {
            Err(prev)
        }
    }

    update_api!(*mut T, update_example = "```\nuse ptx_sync::{AtomicPtr, Gpu, Ordering::*};\nlet mut slots = [1u32, 2];\nlet p = AtomicPtr::<u32, Gpu>::new(slots.as_mut_ptr());\nlet old = p.update(AcqRel, Acquire, |q| q.wrapping_add(1));\nassert_eq!(old, slots.as_mut_ptr());\nassert_eq!(unsafe { *p.load(Relaxed) }, 2);\n```");

    /// Applies `f` in a compare-exchange loop until it succeeds or `f` returns `None`, like
    /// core's `fetch_update`. `fetch_order` (the loads and failed exchanges) cannot be Release
    /// or AcqRel.
    ///
    /// PTX: `ld.<fetch_order>.<scope>.b64`, then `atom.<sem>.<scope>.cas.b64` per attempt.
    ///
    /// # Panics
    ///
    /// When `fetch_order` is Release or AcqRel (as in `core`), in every build (on the GPU the
    /// thread prints the message and traps).
    #[inline(always)]
    #[track_caller]
    pub fn fetch_update<F>(
        &self,
        set_order: Ordering,
        fetch_order: Ordering,
        mut f: F,
    ) -> Result<*mut T, *mut T>
    where
        F: FnMut(*mut T) -> Option<*mut T>,
    {
        let mut prev = self.load(fetch_order);
        while let Some(next) = f(prev) {
            match self.compare_exchange_weak(prev, next, set_order, fetch_order) {
                Ok(v) => return Ok(v),
                Err(actual) => prev = actual,
            }
        }
        Err(prev)
    }
}

impl<T, S: Scope> Default for AtomicPtr<T, S> {
    /// A null pointer.
    fn default() -> Self {
        Self::new(core::ptr::null_mut())
    }
}

// `crate::loom::host` views the cell as core's `AtomicPtr<T>`.
crate::backend::cfg_host! {
    cfg_not_loom! {
        const _: () = assert!(
            core::mem::size_of::<AtomicPtr<u8, crate::scope::Gpu>>() == core::mem::size_of::<*mut u8>()
                && core::mem::align_of::<core::sync::atomic::AtomicPtr<u8>>()
                    == core::mem::align_of::<*mut u8>()
        );
    }
}
