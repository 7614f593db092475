//! Atomics that name their state space: `atom.<sem>.<scope>.shared::cta.<op>` on a
//! [`Shared<Atomic<T, S>>`](Shared), `atom.<sem>.<scope>.global.<op>` on a
//! [`Global<Atomic<T, S>>`](Global), and (sm_90) `atom.<sem>.<scope>.shared::cluster.<op>` on a
//! `ClusterShared<Atomic<T, S>>` (GPU only) in another block of the cluster.
//!
//! # Generic or explicit addressing
//!
//! [`Atomic`]'s methods take a generic address (`atom.<sem>.<scope>.<op>` with no state
//! space), so one `Atomic<u32, Cta>` works in shared, global or mapped memory. The hardware
//! then resolves the window the address falls in on every access: an SM executes a generic
//! atomic as `ATOM` (it checks the shared window, then goes to shared memory or to L2), where
//! an explicit `.shared::cta` one is `ATOMS` and an explicit `.global` one `ATOMG`/`REDG`. A
//! `Shared` handle is also 32 bits, not 64: one register fewer per address, and address
//! arithmetic in 32 bits. CUDA C++ gets the explicit forms when nvcc can see the space
//! (`atomicAdd(&shared_var, 1)` is `atom.shared.add.u32`), but libcu++'s `cuda::atomic_ref`
//! on a `__shared__` variable is generic (nvcc 13.5 emits `cvta.shared.u64` then
//! `atom.add.relaxed.cta.u32`, `ATOM.E.ADD.STRONG.SM` in SASS). BENCHMARKS.md's `space/` rows
//! measure both forms against CUDA C++.
//!
//! The explicit form is undefined on an address of the wrong space (PTX ISA, "Generic
//! Addressing": a state-space instruction on an address outside that window is undefined),
//! and a shared address is only meaningful in the block that made it. So the handles are
//! raw pointers of another address space: creating one from a generic pointer
//! ([`Shared::from_generic`], [`Global::from_generic`]) is `unsafe`, and debug builds check it
//! there once (`isspacep.shared::cta` / `isspacep.global`, a trap with a message, as the
//! primitives do for local memory), not on every access. [`Shared::add`],
//! [`cast`](Shared::cast) and `at` are unchecked address arithmetic, so every access is
//! `unsafe` too, like a `*mut T` dereference. A [`shared!`](crate::shared!) variable's
//! handle is right by construction.
//!
//! # The PTX of each order
//!
//! The same mapping as [`Atomic`] (see [the table](crate::atomic)), with the state space after
//! the scope: `ld.<sem>.<scope>.<space>.bN`, `st.<sem>.<scope>.<space>.bN`,
//! `atom.<sem>.<scope>.<space>.<op>.<type>`, `red.<sem>.<scope>.<space>.<op>.<type>`; SeqCst is
//! `fence.sc.<scope>` then the `.acquire` (load, RMW) or `.relaxed` (store, `red`) form.
//! `<space>` is `shared::cta`, `global` or `shared::cluster`.
//!
//! # Scopes
//!
//! The PTX ISA allows every scope with every state space (ptxas accepts `.sys` on
//! `.shared::cta`). Only the threads of one block reach its `.shared::cta` memory, so `Cta`
//! is the scope that suffices there; a wider one is legal and costs more (on sm_90 an
//! `atom.acquire.gpu.shared::cta` is `ATOMS` plus an L1 invalidation and a GPU-wide
//! `MEMBAR`). Memory another block reaches through `.shared::cluster` needs `Cluster` scope
//! to synchronize with that block's threads.
//!
//! # Types and operations
//!
//! Integers (`u32 i32 u64 i64`): `load`, `store`, `swap`, `compare_exchange`,
//! `compare_exchange_weak`, `fetch_add`, `fetch_sub`, `fetch_and`, `fetch_or`, `fetch_xor`,
//! `fetch_min`, `fetch_max`, `red_add`. Floats (`f32 f64`): `load`, `store`, `swap`,
//! `compare_exchange` (bits), `fetch_add`, `fetch_sub`, `red_add`. On the host backend every
//! handle is an ordinary pointer and the operations are [`Atomic`]'s.

use super::Atomic;
use crate::backend::global::GlobalAddr;
use crate::backend::on_target;
use crate::order;
use crate::scope::Scope;
use crate::shared::Shared;
use core::sync::atomic::Ordering;

/// A `T` in global memory, addressed in the `.global` window (on the host backend: an
/// ordinary pointer). A raw pointer of that space: creating one from a generic pointer is
/// `unsafe`, and so is every access through it.
///
/// ```
/// use ptx_sync::{Atomic, Global, Gpu, Ordering::*};
///
/// let mut words = [0u32; 2];
/// // A kernel gets such a pointer as an argument (cudaMalloc'd memory).
/// let g = unsafe { Global::<Atomic<u32, Gpu>>::from_generic(words.as_mut_ptr().cast()) };
/// unsafe {
///     g.add(1).fetch_add(5, Relaxed); // atom.relaxed.gpu.global.add.u32
///     assert_eq!(g.add(1).load(Acquire), 5); // ld.acquire.gpu.global.b32
/// }
/// assert_eq!(words, [0, 5]);
/// ```
pub struct Global<T> {
    addr: GlobalAddr<T>,
}

/// The generic address, as a pointer's `Debug` (`Global(0x7f..)`).
impl<T> core::fmt::Debug for Global<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Global").field(&self.generic()).finish()
    }
}

impl<T> Clone for Global<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Global<T> {}

impl<T> Global<T> {
    /// The global location a generic pointer points to (a kernel's pointer argument, device
    /// memory the host allocated).
    ///
    /// PTX: `cvta.to.global.u64` (ptxas folds it: the global window is where generic
    /// addresses of global memory point). Debug builds first test the pointer with
    /// `isspacep.global` and trap with a message when it is not global memory (shared or
    /// local memory, a null pointer). On the host backend: the pointer itself.
    ///
    /// # Safety
    /// `p` points into global memory (device memory or mapped host memory).
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when `p` is not in global memory
    /// (`isspacep.global`); release builds do not check.
    #[inline(always)]
    pub unsafe fn from_generic(p: *mut T) -> Global<T> {
        Global {
            // SAFETY: the caller's contract.
            addr: unsafe { GlobalAddr::from_generic(p) },
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
    pub fn add(self, n: usize) -> Global<T> {
        Global {
            addr: self.addr.add(n),
        }
    }

    /// The same address as a `U` (no check of `U`'s alignment).
    #[inline(always)]
    pub fn cast<U>(self) -> Global<U> {
        Global {
            addr: self.addr.cast(),
        }
    }

    /// The same location as a generic pointer.
    ///
    /// PTX: `cvta.global.u64`. On the host backend: the pointer.
    #[inline(always)]
    pub fn generic(self) -> *mut T {
        self.addr.generic()
    }
}

crate::backend::cfg_gpu! {
    impl<T> Global<T> {
        /// The `.global` address. GPU only.
        #[inline(always)]
        pub fn address(self) -> u64 {
            self.addr.address()
        }
    }
}

// The host backend's view of a handle: the `Atomic` it points to, whose methods are the
// host implementation.
crate::backend::cfg_host! {
    macro_rules! host_atomic {
        ($self:ident) => {
            // SAFETY: the caller's contract of every handle method (a live, aligned atomic).
            unsafe { &*$self.generic() }
        };
    }
}

/// The shared part of every handle x type: loads, stores, swap and compare-exchange on the
/// bits (`$b`), `fetch_add`/`fetch_sub`/`red_add` with the add type (`$add`). `$space` is the
/// PTX state space, `$areg` the address register class; `$doc` is the doc example's setup,
/// which binds `a`, a handle holding `$one`.
macro_rules! space_common {
    ($H:ident, $space:literal, $areg:ident, $t:ident, $bits:ident, $reg:ident, $b:literal,
     $add:literal, $one:literal, $two:literal, $doc:ident) => {
        /// Loads the value. Orders: Relaxed, Acquire, SeqCst (Release and AcqRel panic).
        ///
        #[doc = concat!("PTX: `ld.<sem>.<scope>.", $space, ".", $b, "`; SeqCst adds a leading `fence.sc.<scope>`.")]
        ///
        /// # Safety
        #[doc = concat!("The handle points at a live, aligned `Atomic<", stringify!($t), ", S>` in its space,")]
        /// which every concurrent access reaches atomically.
        ///
        /// # Panics
        ///
        /// When `order` is Release or AcqRel (as `core`'s `load`), in every build (on the GPU the
        /// thread prints the message and traps).
        ///
        /// ```
        #[doc = $doc!($t, $one)]
        #[doc = concat!("assert_eq!(unsafe { a.load(Acquire) }, ", $one, ");")]
        /// ```
        #[inline(always)]
        #[track_caller]
        pub unsafe fn load(self, order: Ordering) -> $t {
            on_target!(sem = order::load(order);
                gpu: $t::from_bits(with_load_sem!(S, sem; space_ld!($space, $b, $reg, $bits, $areg, self.address()))),
                host: host_atomic!(self).load(order))
        }

        /// Stores `val`. Orders: Relaxed, Release, SeqCst (Acquire and AcqRel panic).
        ///
        #[doc = concat!("PTX: `st.<sem>.<scope>.", $space, ".", $b, "`; SeqCst is `fence.sc.<scope>` + `st.relaxed`.")]
        ///
        /// # Safety
        /// As [`load`](Self::load).
        ///
        /// # Panics
        ///
        /// When `order` is Acquire or AcqRel (as `core`'s `store`), in every build (on the GPU the
        /// thread prints the message and traps).
        ///
        /// ```
        #[doc = $doc!($t, $one)]
        #[doc = concat!("unsafe { a.store(", $two, ", Release) };")]
        #[doc = concat!("assert_eq!(unsafe { a.load(Relaxed) }, ", $two, ");")]
        /// ```
        #[inline(always)]
        #[track_caller]
        pub unsafe fn store(self, val: $t, order: Ordering) {
            on_target!(sem = order::store(order);
                gpu: with_store_sem!(S, sem; space_st!($space, $b, $reg, $areg, self.address(), val.to_bits())),
                host: host_atomic!(self).store(val, order))
        }

        /// Stores `val` and returns the previous value. Every order.
        ///
        #[doc = concat!("PTX: `atom.<sem>.<scope>.", $space, ".exch.", $b, "`.")]
        ///
        /// # Safety
        /// As [`load`](Self::load).
        #[inline(always)]
        pub unsafe fn swap(self, val: $t, order: Ordering) -> $t {
            on_target!(sem = order::rmw(order);
                gpu: $t::from_bits(with_rmw_sem!(S, sem; space_atom!($space, "exch", $b, $reg, $bits, $areg, self.address(), val.to_bits()))),
                host: host_atomic!(self).swap(val, order))
        }

        /// Stores `new` if the value is `current` (comparing bits); returns `Ok(previous)` if it
        /// did, `Err(actual)` if not. `failure` cannot be Release or AcqRel; the two orders merge
        /// into one `.sem`, as [`Atomic::compare_exchange`] documents.
        ///
        #[doc = concat!("PTX: `atom.<sem>.<scope>.", $space, ".cas.", $b, "`.")]
        ///
        /// # Safety
        /// As [`load`](Self::load).
        ///
        /// # Panics
        ///
        /// When `failure` is Release or AcqRel (as in `core`), in every build (on the GPU the
        /// thread prints the message and traps).
        ///
        /// ```
        #[doc = $doc!($t, $one)]
        #[doc = concat!("assert_eq!(unsafe { a.compare_exchange(", $one, ", ", $two, ", AcqRel, Acquire) }, Ok(", $one, "));")]
        #[doc = concat!("assert_eq!(unsafe { a.compare_exchange(", $one, ", ", $two, ", AcqRel, Acquire) }, Err(", $two, "));")]
        /// ```
        #[inline(always)]
        #[track_caller]
        pub unsafe fn compare_exchange(self, current: $t, new: $t, success: Ordering, failure: Ordering)
            -> Result<$t, $t>
        {
            let prev: $bits = on_target!(sem = order::compare_exchange(success, failure);
                gpu: with_rmw_sem!(S, sem; space_cas!($space, $b, $reg, $bits, $areg, self.address(), current.to_bits(), new.to_bits())),
                host: { match host_atomic!(self).compare_exchange(current, new, success, failure) {
                            Ok(v) | Err(v) => v.to_bits() } });
            if prev == current.to_bits() { Ok($t::from_bits(prev)) } else { Err($t::from_bits(prev)) }
        }

        /// Same as [`compare_exchange`](Self::compare_exchange) (PTX `atom.cas` never fails
        /// spuriously).
        ///
        /// # Safety
        /// As [`load`](Self::load).
        ///
        /// # Panics
        ///
        /// When `failure` is Release or AcqRel (as in `core`), in every build (on the GPU the
        /// thread prints the message and traps).
        #[inline(always)]
        #[track_caller]
        pub unsafe fn compare_exchange_weak(self, current: $t, new: $t, success: Ordering, failure: Ordering)
            -> Result<$t, $t>
        {
            // SAFETY: the caller's contract.
            unsafe { self.compare_exchange(current, new, success, failure) }
        }

        /// Adds `val` and returns the previous value. Every order.
        ///
        #[doc = concat!("PTX: `atom.<sem>.<scope>.", $space, ".add.", $add, "`.")]
        ///
        /// # Safety
        /// As [`load`](Self::load).
        ///
        /// ```
        #[doc = $doc!($t, $one)]
        #[doc = concat!("assert_eq!(unsafe { a.fetch_add(", $one, ", Relaxed) }, ", $one, ");")]
        #[doc = concat!("assert_eq!(unsafe { a.load(Relaxed) }, ", $two, ");")]
        /// ```
        #[inline(always)]
        pub unsafe fn fetch_add(self, val: $t, order: Ordering) -> $t {
            on_target!(sem = order::rmw(order);
                gpu: $t::from_bits(with_rmw_sem!(S, sem; space_atom!($space, "add", $add, $reg, $bits, $areg, self.address(), val.to_bits()))),
                host: host_atomic!(self).fetch_add(val, order))
        }

        /// Subtracts `val` and returns the previous value. Every order.
        ///
        #[doc = concat!("PTX has no `atom.sub`: `atom.<sem>.<scope>.", $space, ".add.", $add, "` of the negated operand.")]
        ///
        /// # Safety
        /// As [`load`](Self::load).
        #[inline(always)]
        pub unsafe fn fetch_sub(self, val: $t, order: Ordering) -> $t {
            on_target!(sem = order::rmw(order);
                gpu: $t::from_bits(with_rmw_sem!(S, sem; space_atom!($space, "add", $add, $reg, $bits, $areg, self.address(), space_neg!($t, val).to_bits()))),
                host: host_atomic!(self).fetch_sub(val, order))
        }

        /// Adds `val` without returning anything (a reduction). Orders: Relaxed, Release, SeqCst.
        ///
        #[doc = concat!("PTX: `red.<sem>.<scope>.", $space, ".add.", $add, "`; SeqCst is `fence.sc.<scope>` + `red.relaxed`.")]
        ///
        /// # Safety
        /// As [`load`](Self::load).
        ///
        /// # Panics
        ///
        /// When `order` is Acquire or AcqRel, in every build (on the GPU the thread prints the
        /// message and traps).
        #[inline(always)]
        #[track_caller]
        pub unsafe fn red_add(self, val: $t, order: Ordering) {
            on_target!(sem = order::store(order);
                gpu: with_store_sem!(S, sem; space_red!($space, "add", $add, $reg, $areg, self.address(), val.to_bits())),
                host: { host_atomic!(self).fetch_add(val, order); })
        }
    };
}

/// An integer's own bits (for the shared `to_bits`/`from_bits` calls of `space_common!`).
trait Bits: Sized {
    type B;
    fn to_bits(self) -> Self::B;
    fn from_bits(b: Self::B) -> Self;
}
macro_rules! int_bits {
    ($($t:ident => $b:ident),*) => {$(
        impl Bits for $t {
            type B = $b;
            #[inline(always)]
            fn to_bits(self) -> $b { self as $b }
            #[inline(always)]
            fn from_bits(b: $b) -> $t { b as $t }
        }
    )*};
}
int_bits!(u32 => u32, i32 => u32, u64 => u64, i64 => u64);

/// One handle's operations for every type.
macro_rules! space_handle {
    ($H:ident, $space:literal, $areg:ident, $doc:ident) => {
        space_handle!(@int $H, $space, $areg, $doc, u32, u32, reg32, "b32", "u32", "u32");
        space_handle!(@int $H, $space, $areg, $doc, i32, u32, reg32, "b32", "s32", "s32");
        space_handle!(@int $H, $space, $areg, $doc, u64, u64, reg64, "b64", "u64", "u64");
        // PTX has no `atom.add.s64`: two's-complement addition is the `.u64` one.
        space_handle!(@int $H, $space, $areg, $doc, i64, u64, reg64, "b64", "u64", "s64");
        space_handle!(@float $H, $space, $areg, $doc, f32, u32, reg32, "b32", "f32");
        space_handle!(@float $H, $space, $areg, $doc, f64, u64, reg64, "b64", "f64");
    };

    (@int $H:ident, $space:literal, $areg:ident, $doc:ident, $t:ident, $bits:ident, $reg:ident,
     $b:literal, $add:literal, $mm:literal) => {
        impl<S: Scope> $H<Atomic<$t, S>> {
            space_common!($H, $space, $areg, $t, $bits, $reg, $b, $add, "7", "14", $doc);
            space_handle!(@rmw $t, $bits, $reg, $space, $areg, $b, fetch_and, "and", "Bitwise AND");
            space_handle!(@rmw $t, $bits, $reg, $space, $areg, $b, fetch_or, "or", "Bitwise OR");
            space_handle!(@rmw $t, $bits, $reg, $space, $areg, $b, fetch_xor, "xor", "Bitwise XOR");
            space_handle!(@rmw $t, $bits, $reg, $space, $areg, $mm, fetch_min, "min", "Minimum");
            space_handle!(@rmw $t, $bits, $reg, $space, $areg, $mm, fetch_max, "max", "Maximum");
        }
    };

    (@float $H:ident, $space:literal, $areg:ident, $doc:ident, $t:ident, $bits:ident, $reg:ident,
     $b:literal, $add:literal) => {
        impl<S: Scope> $H<Atomic<$t, S>> {
            space_common!($H, $space, $areg, $t, $bits, $reg, $b, $add, "1.5", "3.0", $doc);
        }
    };

    (@rmw $t:ident, $bits:ident, $reg:ident, $space:literal, $areg:ident, $ty:literal, $name:ident,
     $op:literal, $what:literal) => {
        #[doc = concat!($what, " with `val`; returns the previous value. Every order.")]
        ///
        #[doc = concat!("PTX: `atom.<sem>.<scope>.", $space, ".", $op, ".", $ty, "`.")]
        ///
        /// # Safety
        /// As [`load`](Self::load).
        #[inline(always)]
        pub unsafe fn $name(self, val: $t, order: Ordering) -> $t {
            on_target!(sem = order::rmw(order);
                gpu: $t::from_bits(with_rmw_sem!(S, sem; space_atom!($space, $op, $ty, $reg, $bits, $areg, self.address(), val.to_bits()))),
                host: host_atomic!(self).$name(val, order))
        }
    };
}

/// The doc examples' setup for a `Shared` handle: a `shared!` variable.
macro_rules! shared_doc {
    ($t:ident, $v:literal) => {
        concat!(
            "use ptx_sync::{shared, Atomic, Cta, Ordering::*};\n",
            "shared! { static A: Atomic<",
            stringify!($t),
            ", Cta>; }\n",
            "// One thread initializes it (then `block::sync()` on the GPU).\n",
            "unsafe { A.as_ptr().write(Atomic::new(",
            $v,
            ")) };\n",
            "let a = A.shared();"
        )
    };
}

/// The doc examples' setup for a `Global` handle: memory a kernel gets as an argument.
macro_rules! global_doc {
    ($t:ident, $v:literal) => {
        concat!(
            "use ptx_sync::{Atomic, Global, Gpu, Ordering::*};\n",
            "let mut word: Atomic<",
            stringify!($t),
            ", Gpu> = Atomic::new(",
            $v,
            ");\n",
            "let a = unsafe { Global::from_generic(&mut word as *mut Atomic<",
            stringify!($t),
            ", Gpu>) };"
        )
    };
}

space_handle!(Shared, "shared::cta", reg32, shared_doc);
space_handle!(Global, "global", reg64, global_doc);

// Distributed shared memory exists on sm_90 GPUs only.
crate::backend::cfg_sm_90! {
    mod cluster_shared;
    pub use cluster_shared::ClusterShared;
}
