//! The GPU bodies: each operation is the PTX instruction it documents, through `asm!`.

pub(crate) mod atomic;
pub(crate) mod fence;
pub(crate) mod volatile;
pub(crate) mod warp;
