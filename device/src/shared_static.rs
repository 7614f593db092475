//! Typed shared variables: CUDA's `__shared__ T x;` as [`shared!`](crate::shared!).
//!
//! rustc cannot put a `static` in PTX's `.shared` state space, so `shared!` declares the
//! variable in PTX itself, with `global_asm!` at module scope:
//!
//! ```text
//! .shared .align <align_of::<T>()> .b8 ptx_sync_shared_<NAME>_<hash>[<size_of::<T>()>];
//! ```
//!
//! and gives Rust a zero-sized constant of the same name, a [`SharedStatic`], whose methods
//! return the variable's address: [`shared`](SharedStatic::shared) as a
//! [`Shared<T>`](crate::shared::Shared) (`mov.u32` of the symbol: the 32-bit `.shared`
//! address, for `ld/st.shared` and the `.shared::cta` atomics),
//! [`as_ptr`](SharedStatic::as_ptr) as a generic `*mut T`, and [`get`](SharedStatic::get) as
//! a `&'static T` for the primitives (`BlockBarrier`, `Atomic<_, Cta>`, `Mutex<_, Cta>`...),
//! which take generic addresses.
//!
//! ```
//! use ptx_sync::{shared, Atomic, Cta, Ordering::Relaxed};
//!
//! shared! {
//!     /// The block's histogram.
//!     static BINS: [Atomic<u32, Cta>; 4];
//! }
//! // One thread initializes it, then block::sync() on the GPU; then everyone uses it.
//! unsafe { BINS.as_ptr().write(core::array::from_fn(|_| Atomic::new(0))) };
//! let bins = unsafe { BINS.get() };
//! for v in [1u32, 3, 3, 0, 3] {
//!     bins[v as usize].fetch_add(1, Relaxed); // atom.relaxed.cta.add.u32
//! }
//! assert_eq!(bins.each_ref().map(|b| b.load(Relaxed)), [1, 1, 0, 3]);
//! ```
//!
//! # One per block, uninitialized
//!
//! Each block of a launch has its own copy, and it holds whatever the last kernel on that SM
//! left there: nothing initializes it, and `shared!` takes no initializer (PTX has none for
//! `.shared`, and a `const` value would be a promise nothing keeps). The block initializes it:
//! one thread (or every thread, its part) writes it, then `block::sync()` (`barrier.sync 0`
//! orders those writes before every thread's later accesses), then the block uses it. For a
//! primitive, its own init: `BlockBarrier::init(n)`, `Atomic::store`, `Latch::init`,
//! `Semaphore::init`, or a value written whole (`LOCK.as_ptr().write(Mutex::new(0))`). It
//! lives as long as the block: `get`'s `'static` is the kernel's lifetime, and an address
//! handed to another block names that block's copy, not this one.
//!
//! # PTX names
//!
//! A variable's PTX name is `ptx_sync_shared_<NAME>_<hash>`, the hash (FNV-1a, 64 bits) taken
//! over the declaration's module path, file, line and column: two modules (or two functions)
//! declaring the same name get different variables, and `ptxas -v`/a profiler shows the
//! Rust name. Two expansions with the same name at the same place (one macro expanding
//! `shared!` twice) define the same symbol twice, which the PTX assembler rejects: it never
//! aliases silently. The name must be ASCII (PTX identifiers are). A `static` cannot be
//! generic, and neither can this: in a generic function the type cannot name the function's
//! parameters (E0401), and every instance shares the one variable, as a `static` would.
//!
//! # Which kernels pay for it
//!
//! ptxas allocates a module-scope `.shared` variable only in the kernels whose code refers to
//! it: `ptxas -v` on a module with a 1,024-byte and a 64-byte variable reported `1088 bytes
//! smem` for the kernel using both, `128 bytes smem` for one using only a 128-byte one, and
//! no shared memory for a kernel using none. ptxas 13.5 sometimes rounds a kernel's total up
//! to a multiple of 16 bytes. `tests/tests/shared_static_ptxas.rs` checks this on the test
//! kernels. Dynamic shared memory (`block::dynamic_shared_memory()`) starts after them.
//!
//! # On the host backend
//!
//! Off the GPU there are no blocks: the variable is one ordinary `static` for the whole
//! process (left uninitialized, as on the GPU: initialize it before reading), and every
//! "block" of a host test shares it. `index::run_grid` (feature `warp-emulation`) runs one
//! block at a time (and one run at a time), so there each block has it to itself, as on the
//! GPU. `shared()` is then a [`Shared`]
//! over an ordinary pointer, so code written on it runs in host tests unchanged.

use crate::shared::Shared;
use core::marker::PhantomData;

/// The symbol of one [`shared!`](crate::shared!) variable. Implemented only by `shared!`
/// (the implementation promises that `address` is a `.shared` variable of `SIZE` bytes aligned
/// to `ALIGN`, at least `align_of::<Target>()`).
#[doc(hidden)]
pub unsafe trait Symbol: 'static {
    /// The variable's type.
    type Target: 'static;
    /// Its size in PTX (`.b8` arrays of zero elements do not exist: at least 1).
    const SIZE: usize = if core::mem::size_of::<Self::Target>() == 0 {
        1
    } else {
        core::mem::size_of::<Self::Target>()
    };
    /// Its alignment in PTX (`shared!`'s `#[align(N)]` raises it).
    const ALIGN: usize = core::mem::align_of::<Self::Target>();
    /// The `.shared` address (`mov.u32` of the symbol).
    #[cfg(target_arch = "nvptx64")]
    fn address() -> u32;
    /// The host backend's storage.
    #[cfg(not(target_arch = "nvptx64"))]
    fn host() -> *mut Self::Target;
}

/// A variable declared with [`shared!`](crate::shared!): zero-sized; its methods give the
/// block's copy of the variable.
pub struct SharedStatic<K: Symbol> {
    _k: PhantomData<K>,
}

/// The type and this block's address of the variable (its value may be uninitialized: not
/// read).
impl<K: Symbol> core::fmt::Debug for SharedStatic<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedStatic")
            .field("type", &core::any::type_name::<K::Target>())
            .field("ptr", &self.as_ptr())
            .finish()
    }
}

impl<K: Symbol> SharedStatic<K> {
    /// Used by `shared!` only.
    ///
    /// # Safety
    /// `K` is the symbol `shared!` declared.
    #[doc(hidden)]
    pub const unsafe fn __new() -> Self {
        SharedStatic { _k: PhantomData }
    }

    /// The variable as a [`Shared<T>`](Shared): its 32-bit `.shared` address, for
    /// `ld/st.shared` ([`Shared::read`], [`Shared::write`]), element access
    /// ([`Shared::at`]) and the `.shared::cta` atomics on a `Shared<Atomic<T, S>>`.
    ///
    /// PTX: `mov.u32 r, ptx_sync_shared_<NAME>_<hash>;`
    #[inline(always)]
    pub fn shared(&self) -> Shared<K::Target> {
        crate::backend::shared::variable::<K>()
    }

    /// The variable as a generic pointer.
    ///
    /// PTX: `mov.u32` of the symbol, `cvta.shared.u64`.
    #[inline(always)]
    pub fn as_ptr(&self) -> *mut K::Target {
        self.shared().generic()
    }

    /// The variable as a reference (a generic address), for the primitives: a
    /// `&'static BlockBarrier`, `&Atomic<u32, Cta>`, `&Mutex<T, Cta>`.
    ///
    /// # Safety
    /// Nothing reads the value through the reference before this block initialized it (see
    /// the [module](self) docs) and synchronized (`block::sync()`); initializing operations
    /// of the type itself (`BlockBarrier::init`, `Atomic::store`) may come first. The
    /// reference is this block's copy, valid while the block runs. Threads that use it at the
    /// same time share it: the variable's type is then `Sync` (an atomic, a lock), or their
    /// accesses do not overlap.
    ///
    /// ```
    /// use ptx_sync::{shared, Atomic, Cta, Ordering::*};
    /// shared! { static HITS: Atomic<u32, Cta>; }
    /// let hits = unsafe { HITS.get() };
    /// hits.store(0, Relaxed); // one thread, then block::sync() on the GPU
    /// hits.fetch_add(1, Relaxed);
    /// assert_eq!(hits.load(Relaxed), 1);
    /// ```
    #[inline(always)]
    pub unsafe fn get(&self) -> &'static K::Target {
        // SAFETY: a live, aligned location of this block; the caller's contract on its value.
        unsafe { &*self.as_ptr() }
    }
}

crate::backend::cfg_host! {
    /// The host backend's storage of a `shared!` variable (host only: the GPU's is `.shared`).
    #[doc(hidden)]
    pub use crate::backend::shared::HostStorage;
}

/// FNV-1a of `s`: the hash in a variable's PTX name.
#[doc(hidden)]
pub const fn __hash(s: &str) -> u64 {
    let b = s.as_bytes();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < b.len() {
        h ^= b[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

/// Declares variables in the block's shared memory: CUDA's `__shared__ T NAME;`.
///
/// ```
/// use ptx_sync::{shared, Atomic, Cta, Mutex, Ordering::*};
///
/// shared! {
///     /// The block's tile.
///     static TILE: [f32; 256];
///     static HITS: Atomic<u32, Cta>;
///     pub(crate) static LOCK: Mutex<u32, Cta>;
/// }
///
/// // In a kernel: one thread initializes, `block::sync()`, then every thread uses them.
/// unsafe {
///     HITS.as_ptr().write(Atomic::new(0));
///     LOCK.as_ptr().write(Mutex::new(0));
///     TILE.shared().at(3).write(1.5); // st.shared.b32
/// }
/// *unsafe { LOCK.get() }.lock() += 1;
/// unsafe { HITS.shared().fetch_add(1, Relaxed) }; // atom.relaxed.cta.shared::cta.add.u32
/// assert_eq!(unsafe { TILE.shared().at(3).read() }, 1.5);
/// assert_eq!(unsafe { HITS.get() }.load(Relaxed), 1);
/// ```
///
/// Each `static NAME: T;` (with optional attributes, docs and visibility) becomes:
/// - on the GPU, a module-scope `.shared .align A .b8 ptx_sync_shared_NAME_<hash>[N];` (`A` and
///   `N` are `T`'s alignment and size, `A` raised by `#[align(..)]`, below), emitted with
///   `global_asm!`;
/// - a constant `NAME` of type [`SharedStatic`]: `NAME.shared()` ([`Shared<T>`](crate::shared::Shared),
///   `.shared` address), `NAME.as_ptr()` (`*mut T`), `unsafe { NAME.get() }` (`&'static T`);
/// - a hidden module `NAME` holding the symbol (modules and constants have separate
///   namespaces).
///
/// `#[align(N)]` (a power of two: any other `N` is a compile error) among the attributes raises
/// the variable's alignment to `N` when `T`'s is smaller, on the GPU (`.shared .align N`) and on
/// the host. A bulk copy (`bulk::copy_global_to_shared`, sm_90, GPU only) writes only 16-byte
/// aligned shared memory, and a `[u32; 1024]` is 4-byte aligned: declare its target
/// `#[align(16)]`.
///
/// ```
/// ptx_sync::shared! {
///     /// The copy engine's target (bulk copies need 16-byte alignment).
///     #[align(16)]
///     static TILE: [u32; 1024];
/// }
/// assert_eq!(TILE.as_ptr() as usize % 16, 0);
/// assert_eq!(TILE.shared().at(5).generic() as usize % 4, 0);
/// ```
///
/// The variable is uninitialized at launch, one copy per block; see the
/// [`shared_static`](crate::shared_static) module docs for who initializes it, the PTX names,
/// and the host backend (one ordinary static). It works at module scope and inside function
/// bodies, not with generic types.
#[macro_export]
#[cfg_attr(
    target_arch = "nvptx64",
    allow_internal_unstable(asm_experimental_arch)
)]
macro_rules! shared {
    () => {};
    // The attributes are taken one at a time: `#[align(N)]` is the variable's own, every other
    // one (docs, `#[allow]`...) goes on the constant.
    (@attrs [$($m:tt)*] [$($a:tt)*] #[align($n:literal)] $($rest:tt)*) => {
        $crate::shared!(@attrs [$($m)*] [$n] $($rest)*);
    };
    (@attrs [$($m:tt)*] [$($a:tt)*] #[$meta:meta] $($rest:tt)*) => {
        $crate::shared!(@attrs [$($m)* #[$meta]] [$($a)*] $($rest)*);
    };
    (@attrs [$($m:tt)*] [$($a:tt)*] $vis:vis static $name:ident : $t:ty; $($rest:tt)*) => {
        $crate::shared!(@one [$($m)*] [$($a)*] $vis static $name: $t);
        $crate::shared!($($rest)*);
    };
    (@attrs $($bad:tt)*) => {
        ::core::compile_error!(
            "shared!: expected `static NAME: T;`, with optional attributes, `#[align(N)]` and visibility"
        );
    };
    // The host backend's storage: `T`'s alignment, or `N` when larger.
    (@host [] $t:ty) => {{
        static STORAGE: $crate::shared_static::HostStorage<$t> =
            $crate::shared_static::HostStorage::new();
        STORAGE.get()
    }};
    (@host [$n:literal] $t:ty) => {{
        #[repr(C, align($n))]
        struct Aligned($crate::shared_static::HostStorage<$t>);
        static STORAGE: Aligned = Aligned($crate::shared_static::HostStorage::new());
        STORAGE.0.get()
    }};
    (@align [] $t:ty) => { ::core::mem::align_of::<$t>() };
    (@align [$n:literal] $t:ty) => {{
        const N: usize = $n;
        ::core::assert!(N.is_power_of_two(), "shared!: #[align(N)] needs a power of two");
        if N > ::core::mem::align_of::<$t>() { N } else { ::core::mem::align_of::<$t>() }
    }};
    (@one [$($m:tt)*] [$($a:tt)*] $vis:vis static $name:ident : $t:ty) => {
        // The symbol lives in a module of the variable's name (the type namespace), so the
        // constant of the same name (the value namespace) can refer to it. `global_asm!` must
        // be at module level: inside a function body, that module is the only item position.
        #[doc(hidden)]
        #[allow(non_snake_case)]
        $vis mod $name {
            /// The variable's symbol.
            pub struct Symbol(());
            $crate::__cfg_gpu! {
                /// The hash in its PTX name.
                pub const HASH: u64 = $crate::shared_static::__hash(::core::concat!(
                    ::core::module_path!(), "@", ::core::file!(), ":", ::core::line!(), ":",
                    ::core::column!()));
                // Size and alignment come from the `Symbol` impl below, which is written where
                // the type `$t` resolves (the function body or module of the declaration).
                ::core::arch::global_asm!(
                    ::core::concat!(".shared .align {align} .b8 ptx_sync_shared_",
                                    ::core::stringify!($name), "_{hash}[{size}];"),
                    align = const <Symbol as $crate::shared_static::Symbol>::ALIGN,
                    size = const <Symbol as $crate::shared_static::Symbol>::SIZE,
                    hash = const HASH,
                );
            }
        }
        // SAFETY: `address` is the variable declared above, of `$t`'s size and alignment.
        unsafe impl $crate::shared_static::Symbol for $name::Symbol {
            type Target = $t;
            const ALIGN: usize = $crate::shared!(@align [$($a)*] $t);
            $crate::__cfg_gpu! {
                #[inline(always)]
                fn address() -> u32 {
                    let a: u32;
                    // SAFETY: the address of a symbol; reads no memory.
                    unsafe {
                        ::core::arch::asm!(
                            ::core::concat!("mov.u32 {a}, ptx_sync_shared_",
                                            ::core::stringify!($name), "_{hash};"),
                            a = out(reg32) a, hash = const $name::HASH,
                            options(nostack, nomem, pure))
                    };
                    a
                }
            }
            $crate::__cfg_host! {
                fn host() -> *mut $t {
                    $crate::shared!(@host [$($a)*] $t)
                }
            }
        }
        $($m)*
        // SAFETY: the symbol declared above.
        $vis const $name: $crate::shared_static::SharedStatic<$name::Symbol> =
            unsafe { $crate::shared_static::SharedStatic::__new() };
    };
    ($($rest:tt)+) => {
        $crate::shared!(@attrs [] [] $($rest)+);
    };
}
