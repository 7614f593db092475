//! NVSHMEM on the host: the sealed traits behind `nvshmem::Element`, `AtomicElement` and
//! `WaitElement` without methods. NVSHMEM's device library links into kernels only, so the
//! host has no symbol to call; its element types still come from the same tables as the GPU's
//! (`nvshmem/{rma,atomic,wait}.rs`), which the macros here read for the types alone.

/// [`Element`](crate::nvshmem::Element)'s seal.
pub trait Rma: Sized {}

/// [`AtomicElement`](crate::nvshmem::AtomicElement)'s seal.
pub trait Amo: Sized {}

/// [`WaitElement`](crate::nvshmem::WaitElement)'s seal.
pub trait Wait: Sized {}

/// Implements [`Rma`] and `Element` for each type of the table in `nvshmem/rma.rs`.
macro_rules! rma_elements {
    ($($t:ty { $($symbols:tt)* })+) => {$(
        impl $crate::nvshmem::Element for $t {}
        impl $crate::backend::nvshmem::Rma for $t {}
    )+};
}
pub(crate) use rma_elements;

/// Implements [`Amo`] and `AtomicElement` for each type of the table in `nvshmem/atomic.rs`.
macro_rules! atomic_elements {
    ($($t:ty { $($symbols:tt)* })+) => {$(
        impl $crate::nvshmem::AtomicElement for $t {}
        impl $crate::backend::nvshmem::Amo for $t {}
    )+};
}
pub(crate) use atomic_elements;

/// Implements [`Wait`] and `WaitElement` for each type of the table in `nvshmem/wait.rs`.
macro_rules! wait_elements {
    ($($t:ty { $($symbols:tt)* })+) => {$(
        impl $crate::nvshmem::WaitElement for $t {}
        impl $crate::backend::nvshmem::Wait for $t {}
    )+};
}
pub(crate) use wait_elements;
