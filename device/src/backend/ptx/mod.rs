//! The GPU bodies: each operation is the PTX instruction it documents, through `asm!` (or,
//! for NVSHMEM, a call of its device library).

// The GPU build needs an architecture and a PTX ISA the crate's instructions exist in. Without
// `-C target-cpu`, rustc emits PTX for sm_30, which ptxas or the driver would refuse much
// later with an error about one instruction; say what to set instead.
#[cfg(not(target_feature = "sm_70"))]
compile_error!(
    "ptx-sync needs sm_70 or newer: build with -C target-cpu=sm_70 (or sm_75, sm_80, sm_90) \
     in RUSTFLAGS, e.g. RUSTFLAGS=\"-C target-cpu=sm_90 -C target-feature=+ptx84\" (without \
     it rustc targets sm_30, which has no .acquire/.release atomics, fence.sc, nanosleep or \
     match.any), or use ptx_sync_build::PtxBuilder, which sets it"
);
#[cfg(not(target_feature = "ptx84"))]
compile_error!(
    "ptx-sync needs PTX ISA 8.4: build with -C target-feature=+ptx84 in RUSTFLAGS (.b128 \
     atomics at .sys scope need ISA 8.4, ld/st.mmio needs 8.2; loading the PTX needs a CUDA \
     12.4+ driver), or use ptx_sync_build::PtxBuilder, which sets it"
);

pub(crate) mod address_space;
pub(crate) mod atomic;
pub(crate) mod block;
#[cfg(target_feature = "sm_90")]
pub(crate) mod bulk;
pub(crate) mod check;
pub(crate) mod clock;
#[cfg(target_feature = "sm_90")]
pub(crate) mod cluster;
pub(crate) mod fence;
pub(crate) mod global;
pub(crate) mod index;
#[cfg(target_feature = "sm_80")]
pub(crate) mod mbarrier;
#[cfg(feature = "nvshmem")]
pub(crate) mod nvshmem;
pub(crate) mod print;
pub(crate) mod reduce;
pub(crate) mod shared;
pub(crate) mod special_register;
pub(crate) mod volatile;
pub(crate) mod wait;
pub(crate) mod warp;
