//! The backend switch: the one place an operation picks its GPU or its host body.
//!
//! Two ways in. A module of operations that exist on both targets with the same signatures
//! (`backend::warp`) comes from `ptx/` on nvptx and from `host/` elsewhere, and the primitives
//! call it without naming a target. `ptx/` alone has the instructions of the GPU-only
//! primitives (`mbarrier` for `BlockBarrier`, `bulk`, `cluster`), which only GPU builds call.
//! Every `asm!` of the crate is under `ptx/`, but for the two that `shared!` expands in the
//! user's crate.
//!
//! The other: an atomic method names both bodies, `on_target!(sem = order::rmw(order); gpu:
//! .., host: ..)`. On nvptx the GPU body runs: a table of `ptx/atomic.rs` turns `sem` and the
//! scope into one `asm!`. Everywhere else the host body runs, on `crate::loom::host`'s atomics
//! (core's, or loom's model-checked ones under `--cfg loom`), where every scope is the whole
//! system. The order is checked (`crate::order`) before either body, so an order an operation
//! refuses panics on both backends alike.

/// Runs `gpu` on nvptx and `host` elsewhere, with `$sem` bound to the checked `.sem` of the
/// order for the GPU body.
macro_rules! on_target {
    ($sem:ident = $check:expr; gpu: $gpu:expr, host: $host:expr $(,)?) => {{
        // The host body passes the order itself: there `sem` is only the check.
        #[allow(unused_variables)]
        let $sem = $check;
        $crate::backend::on_target!(gpu: $gpu, host: $host)
    }};
    (gpu: $gpu:expr, host: $host:expr $(,)?) => {{
        #[cfg(target_arch = "nvptx64")]
        #[allow(unused_unsafe)]
        // SAFETY: `self` is a valid, aligned atomic location (type invariant / `from_ptr`).
        let r = unsafe {
            // The GPU body names the table and the leaves (`with_rmw_sem!`, `ptx_atom!`...)
            // of `ptx/atomic.rs` as its own, so its file imports nothing that only nvptx has.
            #[allow(unused_imports)]
            use $crate::backend::atomic::*;
            $gpu
        };
        #[cfg(not(target_arch = "nvptx64"))]
        let r = $host;
        r
    }};
}
pub(crate) use on_target;

/// Items of the GPU build only: how a module outside the backend keeps an item to nvptx
/// without naming the target (tokio's `cfg_rt!` pattern).
macro_rules! cfg_gpu {
    ($($item:item)*) => { $crate::__cfg_gpu! { $($item)* } };
}
pub(crate) use cfg_gpu;

/// Items of the GPU build that the host compiles for its unit tests only (algorithms the GPU
/// bodies share, tested with host threads).
macro_rules! cfg_gpu_or_test {
    ($($item:item)*) => { $( #[cfg(any(target_arch = "nvptx64", test))] $item )* };
}
pub(crate) use cfg_gpu_or_test;

/// The GPU build's items, for `cfg_gpu!` and for the crate's exported macros (`shared!`), whose
/// expansion in the user's crate is built for the same target as this crate.
#[doc(hidden)]
#[macro_export]
macro_rules! __cfg_gpu {
    ($($item:item)*) => { $( #[cfg(target_arch = "nvptx64")] $item )* };
}

/// The host build's items, for `cfg_host!` and the crate's exported macros.
#[doc(hidden)]
#[macro_export]
macro_rules! __cfg_host {
    ($($item:item)*) => { $( #[cfg(not(target_arch = "nvptx64"))] $item )* };
}

/// Items of the host build only.
macro_rules! cfg_host {
    ($($item:item)*) => { $crate::__cfg_host! { $($item)* } };
}
pub(crate) use cfg_host;

/// `$attr` on each item in the host build only.
macro_rules! cfg_attr_host {
    (#[$attr:meta] $($item:item)*) => {
        $( #[cfg_attr(not(target_arch = "nvptx64"), $attr)] $item )*
    };
}
pub(crate) use cfg_attr_host;

/// `$attr` on each item in the GPU build only.
macro_rules! cfg_attr_gpu {
    (#[$attr:meta] $($item:item)*) => {
        $( #[cfg_attr(target_arch = "nvptx64", $attr)] $item )*
    };
}
pub(crate) use cfg_attr_gpu;

/// Items of sm_90 GPUs only (distributed shared memory, `.cluster` hardware).
macro_rules! cfg_sm_90 {
    ($($item:item)*) => {
        $( #[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))] $item )*
    };
}
pub(crate) use cfg_sm_90;

/// Items of sm_90 GPUs, and of the host, whose one scope (the whole system) stands for every
/// GPU scope, `.cluster` included.
macro_rules! cfg_sm_90_or_host {
    ($($item:item)*) => {
        $( #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))] $item )*
    };
}
pub(crate) use cfg_sm_90_or_host;

#[cfg(target_arch = "nvptx64")]
mod ptx;
#[cfg(target_arch = "nvptx64")]
pub(crate) use ptx::*;

#[cfg(not(target_arch = "nvptx64"))]
mod host;
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use host::*;
