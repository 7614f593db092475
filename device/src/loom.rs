//! The loom facade: the switch between core's and loom's host atomics (tokio's `loom/` pattern).
//! Three host bodies that loom cannot share carry their own `cfg(loom)` beside it: the host
//! clock (one per model thread), `AtomicU128`'s lock table (a lock per atomic) and `Queue`'s
//! slot array (loom's atomics have no `const` constructor).
//!
//! Under `RUSTFLAGS="--cfg loom"` (device/tests' `models` modules, run by `.ci/run`) the host
//! backend's atomics are loom's model-checked ones, so loom explores every interleaving of the
//! primitives' algorithms. The rest of the crate reaches the host atomics only through here:
//! - [`atomic`]: the atomic types and `fence`, core's or loom's;
//! - [`Cell`], [`cell`], [`host`]: what an `Atomic<T, S>` stores (the value, or the loom
//!   atomic that models it) and the host atomic its operations run on;
//! - `cfg_not_loom!`: the raw-pointer API (`from_ptr`, `as_ptr`), which loom cannot offer
//!   (each loom atomic is an object of its own, not a view of memory);
//! - `const_fn!`: loom's atomics cannot be built in a const context;
//! - [`DataCell`]: plain data that threads hand to each other through a protocol (a queue's
//!   slots): core's `UnsafeCell`, or loom's, which reports every access the protocol leaves
//!   unordered;
//! - [`RELEASE_BY_EXCHANGE`] and [`pause`]: the two places the algorithms bend for the model;
//! - `cfg_warp_emulation!`: the `std`-thread warps (feature `warp-emulation`), which loom's
//!   threads cannot run.

#[cfg(loom)]
pub(crate) use ::loom::sync::atomic;
#[cfg(not(loom))]
pub(crate) use core::sync::atomic;

/// Items that exist only outside loom.
macro_rules! cfg_not_loom {
    ($($item:item)*) => { $( #[cfg(not(loom))] $item )* };
}

/// A `const fn`, except under loom, whose atomics cannot be built in a const context.
macro_rules! const_fn {
    ($(#[$m:meta])* $vis:vis fn $($rest:tt)*) => {
        #[cfg(not(loom))]
        $(#[$m])* $vis const fn $($rest)*
        #[cfg(loom)]
        $(#[$m])* $vis fn $($rest)*
    };
}

/// Items of the warp emulation (feature `warp-emulation`, host only, not under loom).
macro_rules! cfg_warp_emulation {
    ($($item:item)*) => {
        $crate::backend::cfg_host! {
            $( #[cfg(all(feature = "warp-emulation", not(loom)))] $item )*
        }
    };
}

/// Items of the warp emulation that the host docs also show without the feature (`cfg(doc)`,
/// marked as needing it).
macro_rules! cfg_warp_emulation_or_doc {
    ($($item:item)*) => {
        $crate::backend::cfg_host! {
            $( #[cfg(all(any(feature = "warp-emulation", doc), not(loom)))] $item )*
        }
    };
}

crate::backend::cfg_host! {
    /// Items for the host when the warp emulation is off (a warp of one).
    macro_rules! cfg_not_warp_emulation {
        ($($item:item)*) => {
            $crate::backend::cfg_host! {
                $( #[cfg(any(not(feature = "warp-emulation"), loom))] $item )*
            }
        };
    }
}

/// A type an atomic can hold, and the host atomic that holds it.
pub trait Model: Sized {
    /// The host atomic of the same size (`f32` -> `AtomicU32` of its bits).
    type Host;
    /// A new loom atomic holding `self`.
    #[cfg(loom)]
    fn model(self) -> Self::Host;
}

macro_rules! model {
    ($($t:ty => $host:ty $(, $bits:ident)?;)*) => {$(
        impl Model for $t {
            type Host = $host;
            #[cfg(loom)]
            fn model(self) -> $host {
                <$host>::new(self $(.$bits())?)
            }
        }
        // `host` views the cell as this atomic.
        #[cfg(not(loom))]
        const _: () = assert!(
            core::mem::size_of::<$t>() == core::mem::size_of::<$host>()
                && core::mem::align_of::<$t>() == core::mem::align_of::<$host>()
        );
    )*};
}
model! {
    u32 => atomic::AtomicU32;
    i32 => atomic::AtomicI32;
    u64 => atomic::AtomicU64;
    i64 => atomic::AtomicI64;
    usize => atomic::AtomicUsize;
    isize => atomic::AtomicIsize;
    f32 => atomic::AtomicU32, to_bits;
    f64 => atomic::AtomicU64, to_bits;
    u8 => atomic::AtomicU8;
    i8 => atomic::AtomicI8;
    u16 => atomic::AtomicU16;
    i16 => atomic::AtomicI16;
    crate::float16::F16 => atomic::AtomicU16, to_bits;
    crate::float16::Bf16 => atomic::AtomicU16, to_bits;
    crate::float16::F16x2 => atomic::AtomicU32, to_bits;
    crate::float16::Bf16x2 => atomic::AtomicU32, to_bits;
}

// No host atomic holds a `u128`: the host's 128-bit operations take a lock
// (device/src/atomic/wide.rs) around the plain value, or under loom around loom's cell.
impl Model for u128 {
    #[cfg(not(loom))]
    type Host = core::cell::UnsafeCell<u128>;
    #[cfg(loom)]
    type Host = Locked128;
    #[cfg(loom)]
    fn model(self) -> Self::Host {
        Locked128 {
            lock: atomic::AtomicBool::new(false),
            value: ::loom::cell::UnsafeCell::new(self),
        }
    }
}

/// Under loom, a `u128` atomic: its lock word and loom's `UnsafeCell`, which reports any
/// access to the value that the lock does not order.
#[cfg(loom)]
pub struct Locked128 {
    pub(crate) lock: atomic::AtomicBool,
    pub(crate) value: ::loom::cell::UnsafeCell<u128>,
}

/// Names the type only: reading the value would need the lock.
#[cfg(loom)]
impl core::fmt::Debug for Locked128 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Locked128")
    }
}

impl<T> Model for *mut T {
    type Host = atomic::AtomicPtr<T>;
    #[cfg(loom)]
    fn model(self) -> Self::Host {
        atomic::AtomicPtr::new(self)
    }
}

/// What an atomic holding `T` stores: the value, or under loom the loom atomic modelling it.
#[cfg(not(loom))]
pub(crate) type Cell<T> = core::cell::UnsafeCell<T>;
/// What an atomic holding `T` stores: the value, or under loom the loom atomic modelling it.
#[cfg(loom)]
pub(crate) type Cell<T> = <T as Model>::Host;

/// A cell holding `value`.
#[cfg(not(loom))]
#[inline(always)]
pub(crate) const fn cell<T>(value: T) -> Cell<T> {
    core::cell::UnsafeCell::new(value)
}
/// A cell holding `value`.
#[cfg(loom)]
pub(crate) fn cell<T: Model>(value: T) -> Cell<T> {
    value.model()
}

crate::backend::cfg_host! {
    /// The host atomic a cell's operations run on.
    #[cfg(not(loom))]
    #[inline(always)]
    pub(crate) fn host<T: Model>(cell: &Cell<T>) -> &T::Host {
        // SAFETY: `T::Host` has `T`'s size and alignment (asserted in `model!`; `u128`'s is
        // `UnsafeCell<u128>`), the cell is valid for as long as `cell` is borrowed, and every
        // access to it is atomic (the `Atomic` type invariant).
        unsafe { &*cell.get().cast::<T::Host>() }
    }
}
/// The host atomic a cell's operations run on.
#[cfg(loom)]
#[inline(always)]
pub(crate) fn host<T: Model>(cell: &Cell<T>) -> &T::Host {
    cell
}

/// Plain data that threads hand to each other through a protocol of their own (the slots of
/// `Queue`, handed over by turn words): `core::cell::UnsafeCell<T>` (same layout), or under
/// loom `loom::cell::UnsafeCell<T>`, whose accesses loom checks against the happens-before
/// order the protocol's atomics create.
#[cfg(not(loom))]
#[repr(transparent)]
pub(crate) struct DataCell<T>(core::cell::UnsafeCell<T>);
/// Plain data handed over by a protocol (see the non-loom definition).
#[cfg(loom)]
pub(crate) struct DataCell<T>(::loom::cell::UnsafeCell<T>);

impl<T> DataCell<T> {
    const_fn! {
    /// A cell holding `value`.
    #[inline(always)]
    pub(crate) fn new(value: T) -> Self {
        #[cfg(not(loom))]
        return DataCell(core::cell::UnsafeCell::new(value));
        #[cfg(loom)]
        return DataCell(::loom::cell::UnsafeCell::new(value));
    }
    }

    /// `f` of a pointer to the value, for reading it.
    ///
    /// # Safety
    /// No other thread writes the value meanwhile (the protocol's guarantee).
    #[inline(always)]
    pub(crate) unsafe fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        #[cfg(not(loom))]
        return f(self.0.get());
        #[cfg(loom)]
        return self.0.with(f);
    }

    /// `f` of a pointer to the value, for writing it.
    ///
    /// # Safety
    /// No other thread reads or writes the value meanwhile (the protocol's guarantee).
    #[inline(always)]
    pub(crate) unsafe fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        #[cfg(not(loom))]
        return f(self.0.get());
        #[cfg(loom)]
        return self.0.with_mut(f);
    }
}

/// Whether a release that other threads wait on with exchanges (`BinarySemaphore::release`,
/// `AtomicFlag::clear`) must be an exchange rather than a store: under loom. Loom orders a
/// plain store only after the stores its thread has seen, so a releasing store stays
/// unordered against a waiter's failed exchange (a write of the value over itself) that the
/// releaser never read, and loom lets the waiter read its own write forever: a livelock the
/// PTX model (one modification order per word) does not have. With only RMWs writing the
/// word, loom orders them all.
pub(crate) const RELEASE_BY_EXCHANGE: bool = cfg!(loom);

crate::backend::cfg_host! {
    /// The host side of `sleep_ns`: about `ns / 8` spin-loop hints; a thread yield for emulated
    /// warps, whose dozens of lane threads share a few cores (a waiting lane gives its core to the
    /// lane it waits for); a loom yield under loom, which explores every interleaving and never
    /// ends a model whose waiting thread does not yield.
    #[inline(always)]
    pub(crate) fn pause(ns: u32) {
        #[cfg(all(not(loom), not(feature = "warp-emulation")))]
        for _ in 0..ns / 8 + 1 {
            core::hint::spin_loop();
        }
        #[cfg(all(not(loom), feature = "warp-emulation"))]
        {
            let _ = ns;
            std::thread::yield_now();
        }
        #[cfg(loom)]
        {
            let _ = ns;
            ::loom::thread::yield_now();
        }
    }
}
