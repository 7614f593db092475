//! The GPU bodies: each operation is the PTX instruction it documents, through `asm!` (or,
//! for NVSHMEM, a call of its device library).

pub(crate) mod address_space;
pub(crate) mod atomic;
pub(crate) mod block;
pub(crate) mod clock;
pub(crate) mod fence;
pub(crate) mod index;
#[cfg(feature = "nvshmem")]
pub(crate) mod nvshmem;
pub(crate) mod shared;
pub(crate) mod special_register;
pub(crate) mod volatile;
pub(crate) mod wait;
pub(crate) mod warp;
