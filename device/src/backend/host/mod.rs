//! The host bodies: the same operations on ordinary threads, where a thread is a warp of one
//! lane unless the warp emulation (feature `warp-emulation`) runs it as a lane of a warp.

pub(crate) mod block;
pub(crate) mod check;
pub(crate) mod clock;
pub(crate) mod fence;
pub(crate) mod global;
pub(crate) mod index;
#[cfg(feature = "nvshmem")]
pub(crate) mod nvshmem;
pub(crate) mod print;
pub(crate) mod reduce;
pub(crate) mod shared;
pub(crate) mod volatile;
pub(crate) mod wait;
pub(crate) mod warp;
