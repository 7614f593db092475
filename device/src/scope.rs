//! Thread scopes: which threads an atomic operation or fence synchronizes with.
//!
//! A scope is a type parameter (as in libcu++'s `cuda::atomic<T, Scope>`), so a word shared
//! across blocks cannot silently be used at block scope. Each marker maps to one PTX `.scope`
//! qualifier. On the host backend every scope is the whole system (core atomics).
//!
//! | type      | PTX        | synchronizes with                         | libcu++                |
//! |-----------|------------|-------------------------------------------|------------------------|
//! | [`Cta`]     | `.cta`     | threads of the same thread block          | `thread_scope_block`   |
//! | [`Cluster`] | `.cluster` | threads of the same cluster (sm_90+)      | `thread_scope_cluster` |
//! | [`Gpu`]     | `.gpu`     | all threads of the same GPU               | `thread_scope_device`  |
//! | [`Sys`]     | `.sys`     | the GPU, other GPUs and the host CPU      | `thread_scope_system`  |
//!
//! ```
//! use ptx_sync::{Atomic, Cta, Gpu, Latch, Ordering::Relaxed, Scope, ScopeKind};
//!
//! // The scope is part of the type: a counter of one block, a latch for the whole GPU.
//! let hits = Atomic::<u32, Cta>::new(0);
//! hits.fetch_add(1, Relaxed); // atom.relaxed.cta.add.u32
//! let blocks_done: Latch<Gpu> = Latch::new(1);
//! blocks_done.count_down(); // atom.release.gpu.add.u32
//!
//! // Generic code reads the scope from the type, folded at compile time.
//! fn qualifier<S: Scope>() -> &'static str {
//!     match S::KIND {
//!         ScopeKind::Cta => ".cta",
//!         ScopeKind::Cluster => ".cluster",
//!         ScopeKind::Gpu => ".gpu",
//!         ScopeKind::Sys => ".sys",
//!     }
//! }
//! assert_eq!((qualifier::<Cta>(), qualifier::<Gpu>()), (".cta", ".gpu"));
//! ```

/// Which PTX scope a marker stands for. Matching on [`Scope::KIND`] folds at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeKind {
    /// `.cta`
    Cta,
    /// `.cluster`
    Cluster,
    /// `.gpu`
    Gpu,
    /// `.sys`
    Sys,
}

mod sealed {
    pub trait Sealed {}
}

/// A thread scope marker. Sealed: the set of scopes is the PTX set.
pub trait Scope: sealed::Sealed + Copy + Send + Sync + 'static {
    /// The scope this marker stands for (`backend/ptx/atomic.rs` matches on it for the literal
    /// `.scope` of each instruction).
    const KIND: ScopeKind;
}

macro_rules! scopes {
    ($($(#[$attr:meta])* $name:ident => $kind:ident;)*) => {$(
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name;
        $(#[$attr])*
        impl sealed::Sealed for $name {}
        $(#[$attr])*
        impl Scope for $name {
            const KIND: ScopeKind = ScopeKind::$kind;
        }
    )*};
}

scopes! {
    /// Block scope (`.cta`): threads of one thread block (CTA).
    Cta => Cta;
    /// Device scope (`.gpu`): all threads of the GPU.
    Gpu => Gpu;
    /// System scope (`.sys`): the GPU, peer GPUs and host threads (mapped or managed memory).
    Sys => Sys;
}

crate::backend::cfg_sm_90_or_host! {
    scopes! {
        /// Cluster scope (`.cluster`): threads of one thread-block cluster. PTX has it from
        /// sm_90, so on the GPU this type exists only when building for sm_90 or newer.
        Cluster => Cluster;
    }
}
