//! Scoped atomics: `cuda::atomic<T, Scope>` / `cuda::atomic_ref<T, Scope>` in Rust terms.
//!
//! [`Atomic<T, S>`] is one type for both surfaces:
//! - owned: `Atomic::new(0)` in a `static` (device memory) or any memory you own;
//! - a view over a raw pointer: `unsafe { Atomic::from_ptr(p) }` returns `&Atomic<T, S>`, for
//!   the pointers kernels receive as arguments. Generic addressing makes the same code work on
//!   global and shared memory.
//!
//! `T` is `u32 i32 u64 i64 usize isize f32 f64` (and `u128`: sm_90 on the GPU). Two more types have the
//! same two surfaces and the same table below: [`AtomicBool<S>`](AtomicBool) (a `u32` word
//! holding 0 or 1: PTX has no 8-bit `atom`) and [`AtomicPtr<T, S>`](AtomicPtr) (the 64-bit
//! instructions); [`AtomicFlag<S>`](crate::flag::AtomicFlag) is libcu++'s `atomic_flag` over a
//! `u32` word.
//!
//! Methods take `core::sync::atomic::Ordering` with the same rules as `core` on which orders
//! each operation accepts (an order it does not accept panics; on the GPU a panic traps).
//!
//! # The PTX each order emits (`S` is the scope's qualifier, `T` the instruction type)
//!
//! | operation            | Relaxed          | Acquire          | Release          | AcqRel           | SeqCst                            |
//! |----------------------|------------------|------------------|------------------|------------------|-----------------------------------|
//! | `load`               | `ld.relaxed.S`   | `ld.acquire.S`   | panics           | panics           | `fence.sc.S; ld.acquire.S`        |
//! | `store`              | `st.relaxed.S`   | panics           | `st.release.S`   | panics           | `fence.sc.S; st.relaxed.S`        |
//! | RMW (`fetch_*`, `swap`, CAS) | `atom.relaxed.S` | `atom.acquire.S` | `atom.release.S` | `atom.acq_rel.S` | `fence.sc.S; atom.acquire.S` |
//! | `red_*` (no result)  | `red.relaxed.S`  | panics           | `red.release.S`  | panics           | `fence.sc.S; red.relaxed.S`       |
//! | `fetch_nand` (integers: no `atom.nand`) | `ld.relaxed.S`, then `atom.relaxed.S.cas` in a loop | `ld.relaxed.S`, `atom.acquire.S.cas` loop | `ld.relaxed.S`, `atom.release.S.cas` loop | `ld.relaxed.S`, `atom.acq_rel.S.cas` loop | `ld.relaxed.S`, `fence.sc.S; atom.acquire.S.cas` loop |
//! | `notify_one`, `notify_all` | nothing: waits poll (as libcu++'s device `notify_*`) | | | | |
//! | `u8 i8 u16 i16`, `F16 Bf16 F16x2 Bf16x2`, sm_90 vectors ([`small`], [`half`], [`vector`]) | `ld/st.<sem>.S.b8/b16`; `atom.<sem>.S.cas.b16`; `atom/red.<sem>.S.add.noftz.f16/bf16/f16x2/bf16x2`; `atom/red.<sem>.S.add.v2/v4.f32`, `.add/min/max.noftz.v2/v4.f16x2/bf16x2`; the other 8/16-bit RMWs and float `fetch_min/max` as `atom.<sem>.S.cas.b32` loops (no such `atom` in PTX) | | | | |
//!
//! The seq_cst column is the mapping of the PTX memory model (Lustig et al., ASPLOS 2019) that
//! libcu++ uses on sm_70+. `compare_exchange` merges its success and failure orders into one
//! `.sem` (see `compare_exchange`'s docs). On the host backend the same methods call
//! `core::sync::atomic` with the given order and the scope is ignored (host atomics are
//! system-wide).
//!
//! ## Waiting on an atomic
//!
//! Every type with a `load` can wait (`cuda::atomic::wait`): poll with the crate's waiting policy
//! ([`NanoSleep`](crate::wait::NanoSleep)) until the value changes or a predicate holds; the timed form returns
//! [`TimedOut`](crate::wait::TimedOut) instead of hanging. That is `Atomic<T, S>` for each integer
//! and float `T`, [`AtomicBool`] and [`AtomicPtr`].
//!
//! `notify_one` / `notify_all` are no-ops: waiters poll, on the GPU (there is no futex there;
//! libcu++'s device `notify_*` is a no-op too) and on the host backend alike, so a store is all
//! a waiter needs. They exist so code written for `cuda::atomic` (or C++20 atomics) ports
//! unchanged.
//!
//! The timed forms take a `core::time::Duration` (`wait_until_for`) or a deadline on the
//! [`clock`](crate::clock) (`wait_until_deadline`; `wait_until` already names the predicate
//! form), and poll at least once.
//!
//! ```
//! use core::time::Duration;
//! use ptx_sync::{clock::Instant, Atomic, AtomicBool, Gpu, Ordering::Acquire, wait::TimedOut};
//! let a = Atomic::<u32, Gpu>::new(2);
//! assert_eq!(a.wait(0, Acquire), 2);
//! assert_eq!(a.wait_until_for(Duration::from_micros(1), Acquire, |v| v == 1), Err(TimedOut));
//! assert_eq!(a.wait_until_deadline(Instant::now(), Acquire, |v| v == 2), Ok(2));
//! let b = AtomicBool::<Gpu>::new(true);
//! b.notify_all(); // nothing to do: waiters poll
//! assert!(b.wait(false, Acquire));
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`Atomic<T, S>`](crate::atomic::Atomic) (`T`: [`AtomicValue`]; the methods a `T` has: [`AtomicAccess`], [`AtomicAdd`], [`AtomicRedAdd`], [`AtomicBitwise`], [`AtomicMinMax`], [`AtomicRed`]; aliases [`AtomicU32`], [`AtomicI32`], [`AtomicU64`], [`AtomicI64`], [`AtomicUsize`], [`AtomicIsize`], [`AtomicF32`], [`AtomicF64`]): `new`, [`from_ptr`](crate::atomic::Atomic::from_ptr), `load`, `store`, `swap`, `compare_exchange(_weak)`, `fetch_update`, `fetch_add/sub/and/or/xor/min/max`, `fetch_nand`, `fetch_inc/dec`, `red_*` | `ld.relaxed.S` / `ld.acquire.S`, `st.relaxed.S` / `st.release.S`, `atom.<sem>.S.<op>.T`, `red.<sem>.S.<op>.T`; SeqCst: a leading `fence.sc.S`; `usize`/`isize` as `.b64`/`.u64`/`.s64`; `fetch_nand`: `ld.relaxed.S` then an `atom.<sem>.S.cas` loop | `cuda::atomic<T, Scope>`, `cuda::atomic_ref<T, Scope>`; `atomicAdd`, `atomicCAS`, `atomicExch`... (relaxed) |
//! | `Atomic<T, S>` for `T` = `u8 i8 u16 i16 F16 Bf16 F16x2 Bf16x2` ([`AtomicU8`].. [`AtomicBf16x2`]; [`F16`](crate::float16::F16), [`Bf16`](crate::float16::Bf16), [`F16x2`](crate::float16::F16x2), [`Bf16x2`](crate::float16::Bf16x2) in [`float16`](crate::float16)), sm_90 vectors [`atomic::vector`](crate::atomic::vector) (`AtomicF32x2/x4`, `AtomicF16x4/x8`, `AtomicBf16x4/x8`, global memory); every type: `update`, `try_update`; floats: `fetch_min/max`, `fetch_update` | `ld/st.<sem>.S.b8/b16`, `atom.<sem>.S.cas.b16`, `atom/red.<sem>.S.add.noftz.f16/bf16/f16x2/bf16x2`, `atom/red.<sem>.S.add.v2/v4.f32` and `.add/min/max.noftz.v2/v4.f16x2/bf16x2`; other 8/16-bit RMWs and float min/max: `atom.<sem>.S.cas.b32` loops | `cuda::atomic_ref<char/short/__half/__nv_bfloat16>`, `atomicAdd(__half2*)`, sm_90 `atomicAdd(float2*/float4*)` |
//! | [`AtomicBool<S>`](crate::atomic::AtomicBool) (4 bytes: a `u32` word of 0 or 1): `load`, `store`, `swap`, `compare_exchange(_weak)`, `fetch_update`, `fetch_and/or/xor/nand/not` | the `.b32` forms: `ld`, `st`, `atom.<sem>.S.exch/cas/and/or/xor.b32`; `fetch_nand`: `xor` (with true) or `exch` (with false) | `cuda::atomic<bool, Scope>` |
//! | [`AtomicPtr<T, S>`](crate::atomic::AtomicPtr): `load`, `store`, `swap`, `compare_exchange(_weak)`, `fetch_update` | `ld.<sem>.S.b64`, `st.<sem>.S.b64`, `atom.<sem>.S.exch.b64`, `atom.<sem>.S.cas.b64` | `cuda::atomic<T*, Scope>` |
//! | [`AtomicU128<S>`](crate::atomic::AtomicU128) (sm_90 on the GPU; on the host each operation under a lock): `load`, `store`, `swap`, `compare_exchange` | `ld.<sem>.S.b128`, `st.<sem>.S.b128`, `atom.<sem>.S.exch.b128`, `atom.<sem>.S.cas.b128` | `cuda::atomic_ref` of a 16-byte type; 128-bit `atomicCAS` / `atomicExch` (sm_90) |
//! | `Atomic::wait`, `wait_until`, `wait_until_for`, `wait_until_deadline` (every `T`, floats comparing bits; `AtomicBool`, `AtomicPtr` too), `notify_one`, `notify_all` | `ld.<sem>.S` polling with `nanosleep.u32`; `notify_*`: nothing (waiters poll) | `cuda::atomic_ref::wait`, `notify_one`, `notify_all` (no-ops on the device in libcu++ too) |
//! | State-space atomics on [`Shared<Atomic<T, S>>`](crate::shared::Shared), [`Global<Atomic<T, S>>`](crate::atomic::space::Global) and `ClusterShared<Atomic<T, S>>` (sm_90, GPU only): `load`, `store`, `swap`, `compare_exchange(_weak)`, `fetch_add/sub/and/or/xor/min/max`, `red_add` | `ld/st.<sem>.S.<space>.bN`, `atom.<sem>.S.<space>.<op>.T`, `red.<sem>.S.<space>.add.T`, `<space>` = `shared::cta`, `global`, `shared::cluster` (after `mapa.shared::cluster.u32`); SeqCst: a leading `fence.sc.S` | `atomicAdd(&shared_var, v)` (`atom.shared`), inline PTX |
//! | [`Ordering`](crate::Ordering) (`core::sync::atomic::Ordering`) | `.relaxed`, `.acquire`, `.release`, `.acq_rel`; SeqCst as `fence.sc` | `cuda::std::memory_order` |

mod boolean;
mod float;
pub mod half;
mod int;
mod ops;
mod pointer;
pub mod small;
pub mod space;
mod update;
cfg_not_loom! {
    crate::backend::cfg_sm_90_or_host! {
        pub mod vector;
    }
}
mod waiting;
// sm_90 on the GPU; on the host under a lock (wide.rs).
crate::backend::cfg_sm_90_or_host! {
    mod wide;
    pub use wide::AtomicU128;
}

pub use boolean::AtomicBool;
pub use half::{AtomicBf16, AtomicBf16x2, AtomicF16, AtomicF16x2};
pub use ops::{AtomicAccess, AtomicAdd, AtomicBitwise, AtomicMinMax, AtomicRed, AtomicRedAdd};
pub use pointer::AtomicPtr;
pub use small::{AtomicI16, AtomicI8, AtomicU16, AtomicU8};
cfg_not_loom! {
    crate::backend::cfg_sm_90_or_host! {
        pub use vector::{AtomicBf16x4, AtomicBf16x8, AtomicF16x4, AtomicF16x8, AtomicF32x2, AtomicF32x4};
    }
}

use crate::loom::{cell, Cell, Model};
use crate::scope::Scope;
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

/// A type [`Atomic`] can hold: `u32`, `i32`, `u64`, `i64`, `usize`, `isize`, `f32`, `f64`, the
/// narrow `u8`, `i8`, `u16`, `i16` ([`small`]) and half floats `F16`, `Bf16`, `F16x2`, `Bf16x2`
/// ([`half`]), and `u128` (sm_90 on the GPU). `bool` and pointers have their own types, [`AtomicBool`] (a 4-byte word)
/// and [`AtomicPtr`].
///
/// Which methods an `Atomic<T, S>` has depends on `T`, through the sealed capability traits:
/// [`AtomicAccess`] (`load`, `store`, `swap`, `compare_exchange`, the update loops, `wait`),
/// [`AtomicAdd`], [`AtomicRedAdd`], [`AtomicBitwise`], [`AtomicMinMax`] and [`AtomicRed`].
pub trait AtomicValue: sealed::Sealed + Model + Copy + Send + 'static {}

macro_rules! atomic_values {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl AtomicValue for $t {}
    )*};
}
// The host atomic of each (or loom's model of it) is in `crate::loom`'s table.
atomic_values!(
    u32,
    i32,
    u64,
    i64,
    usize,
    isize,
    f32,
    f64,
    u8,
    i8,
    u16,
    i16,
    crate::float16::F16,
    crate::float16::Bf16,
    crate::float16::F16x2,
    crate::float16::Bf16x2,
    u128
);

/// An atomic `T` whose operations synchronize at scope `S` ([`Cta`](crate::scope::Cta),
/// [`Cluster`](crate::scope::Cluster), [`Gpu`](crate::scope::Gpu), [`Sys`](crate::scope::Sys)).
///
/// Same size and alignment as `T`.
///
/// Shared or global memory (or mapped host memory for `Sys`), never a kernel's local
/// variable: atomics on `.local` addresses are undefined in the PTX ISA (and rustc has its own
/// bugs there: rust-lang/rust#146686). `Atomic` itself does not check; the primitives built on
/// it do in debug builds.
///
/// ```
/// use ptx_sync::{Atomic, Gpu};
/// use core::sync::atomic::Ordering::*;
///
/// static HITS: Atomic<u32, Gpu> = Atomic::new(0);
/// HITS.fetch_add(1, Relaxed);
/// assert_eq!(HITS.load(Acquire), 1);
/// ```
#[repr(transparent)]
pub struct Atomic<T: AtomicValue, S: Scope> {
    // The value (under `--cfg loom`, loom's model-checked atomic of the same width).
    value: Cell<T>,
    scope: PhantomData<S>,
}

// SAFETY: as core's atomics are `Sync`: every access to `value` through `&self` is an atomic
// instruction. (`Send` is the field's: every `AtomicValue` is `Send`.)
unsafe impl<T: AtomicValue, S: Scope> Sync for Atomic<T, S> {}

/// `Debug` as core's atomics: the value, read with a `Relaxed` load (`ld.relaxed.S`).
impl<T: AtomicAccess + core::fmt::Debug, S: Scope> core::fmt::Debug for Atomic<T, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.load(core::sync::atomic::Ordering::Relaxed), f)
    }
}

crate::backend::cfg_sm_90_or_host! {
    /// `Debug` for `u128` (its own `load`, not [`AtomicAccess`]'s): as above.
    impl<S: Scope> core::fmt::Debug for Atomic<u128, S> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            core::fmt::Debug::fmt(&self.load(core::sync::atomic::Ordering::Relaxed), f)
        }
    }
}

impl<T: AtomicValue, S: Scope> Atomic<T, S> {
    const_fn! {
    /// A new atomic holding `value`.
    #[inline(always)]
    pub fn new(value: T) -> Self {
        Atomic {
            value: cell(value),
            scope: PhantomData,
        }
    }
    }

    crate::backend::cfg_host! {
        /// The host atomic this one's operations run on (core's, or loom's under `--cfg loom`).
        #[inline(always)]
        pub(crate) fn host(&self) -> &T::Host {
            crate::loom::host::<T>(&self.value)
        }
    }

    cfg_not_loom! {
    /// Views the `T` at `ptr` as an atomic, like `AtomicU32::from_ptr`.
    ///
    /// ```
    /// use ptx_sync::{Atomic, Cta};
    /// use core::sync::atomic::Ordering::*;
    ///
    /// let mut word = 7u64;
    /// let a = unsafe { Atomic::<u64, Cta>::from_ptr(&mut word) };
    /// assert_eq!(a.swap(9, AcqRel), 7);
    /// assert_eq!(word, 9);
    /// ```
    ///
    /// # Safety
    /// `ptr` is valid for reads and writes, aligned to `align_of::<T>()`, for all of `'a`, and
    /// every concurrent access to it during `'a` is atomic (through this crate or an
    /// equivalent scoped atomic). For the 1- and 2-byte types (`u8`, `i8`, `u16`, `i16`, `F16`,
    /// `Bf16`), the aligned 4-byte word that contains the value must be valid for reads and
    /// writes too, in the same memory: the GPU emulates most of their operations on that word
    /// (see [`small`]).
    ///
    /// # Panics
    ///
    /// In a debug build, panics (on the GPU: prints the message and traps) when `ptr` is not
    /// aligned to `align_of::<T>()`; release builds do not check.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut T) -> &'a Self {
        debug_check!(ptr.is_aligned(), "Atomic::from_ptr: misaligned pointer");
        // SAFETY: `Atomic<T, S>` is `repr(transparent)` over `UnsafeCell<T>`; the caller
        // guarantees validity and alignment.
        unsafe { &*(ptr as *const Self) }
    }

    /// The address of the value (generic address space on the GPU).
    #[inline(always)]
    pub const fn as_ptr(&self) -> *mut T {
        self.value.get()
    }

    /// Mutable access: no other thread can see the value while `&mut self` is held.
    #[inline(always)]
    pub fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }

    /// Consumes the atomic and returns the value.
    #[inline(always)]
    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }
    }
}

/// `Atomic<u32, S>`.
pub type AtomicU32<S> = Atomic<u32, S>;
/// `Atomic<i32, S>`.
pub type AtomicI32<S> = Atomic<i32, S>;
/// `Atomic<u64, S>`.
pub type AtomicU64<S> = Atomic<u64, S>;
/// `Atomic<i64, S>`.
pub type AtomicI64<S> = Atomic<i64, S>;
/// `Atomic<usize, S>` (64-bit on the GPU: the `u64` instructions).
pub type AtomicUsize<S> = Atomic<usize, S>;
/// `Atomic<isize, S>` (64-bit on the GPU: the `u64` add, the `s64` min/max).
pub type AtomicIsize<S> = Atomic<isize, S>;
/// `Atomic<f32, S>`.
pub type AtomicF32<S> = Atomic<f32, S>;
/// `Atomic<f64, S>`.
pub type AtomicF64<S> = Atomic<f64, S>;

/// The load order a read-modify-write loop uses for its reads: the `load`-legal part of
/// `order` (Release -> Relaxed, AcqRel -> Acquire).
#[inline(always)]
pub(crate) const fn read_part(order: core::sync::atomic::Ordering) -> core::sync::atomic::Ordering {
    use core::sync::atomic::Ordering::*;
    match order {
        Release => Relaxed,
        AcqRel => Acquire,
        o => o,
    }
}
