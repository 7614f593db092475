//! [`Team`]: NVSHMEM's predefined teams (`nvshmem_team_t`).

/// An NVSHMEM team handle (`nvshmem_team_t`, an `int32_t`): a set of PEs with their own
/// numbering, for [`barrier`](super::barrier) and [`team_sync`](super::team_sync). Only the
/// predefined teams exist here; every PE is a member of each.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Team(i32);

impl Team {
    /// Every PE of the job (`NVSHMEM_TEAM_WORLD`, 0 in device_host/nvshmem_common.cuh).
    pub const WORLD: Team = Team(0);
    /// The PEs whose symmetric heaps this PE can reach with loads and stores
    /// (`NVSHMEM_TEAM_SHARED`, 1): the PEs for which [`Symmetric::ptr`](super::Symmetric::ptr)
    /// is `Some`.
    pub const SHARED: Team = Team(1);
    /// The PEs on this node (`NVSHMEMX_TEAM_NODE`, 2).
    pub const NODE: Team = Team(2);

    /// The handle as NVSHMEM's `nvshmem_team_t`.
    #[inline(always)]
    pub const fn raw(self) -> i32 {
        self.0
    }

    gpu_only! {
        /// This PE's number in the team, `0..self.n_pes()`. Calls `nvshmem_team_my_pe`.
        #[inline(always)]
        pub fn my_pe(self) -> u32 {
            extern "C" {
                fn nvshmem_team_my_pe(team: i32) -> core::ffi::c_int;
            }
            // SAFETY: a predefined team; NVSHMEM returns -1 only for a team this PE is not in.
            unsafe { nvshmem_team_my_pe(self.0) as u32 }
        }

        /// The number of PEs in the team. Calls `nvshmem_team_n_pes`.
        #[inline(always)]
        pub fn n_pes(self) -> u32 {
            extern "C" {
                fn nvshmem_team_n_pes(team: i32) -> core::ffi::c_int;
            }
            // SAFETY: a predefined team, always valid after initialization.
            unsafe { nvshmem_team_n_pes(self.0) as u32 }
        }
    }
}
