//! Cooperative launch sizing: spinning on another block only makes progress if that block is
//! resident, which only a cooperative launch within the occupancy limit guarantees.

use crate::{Device, Error, Kernel, Result};
use cudarc::driver::{sys, LaunchConfig};

/// How many blocks of a kernel can be resident at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoopLimit {
    /// Resident blocks per SM for this kernel, block size and shared memory.
    pub blocks_per_sm: u32,
    /// SMs on the device.
    pub sms: u32,
    /// `blocks_per_sm * sms`: the largest cooperative grid.
    pub max_blocks: u32,
}

impl Device {
    /// The largest cooperative grid for `kernel` with `block_threads` threads and
    /// `dyn_smem_bytes` of dynamic shared memory per block, from the occupancy calculator.
    pub fn cooperative_limit(
        &self,
        kernel: &Kernel,
        block_threads: u32,
        dyn_smem_bytes: u32,
    ) -> Result<CoopLimit> {
        if block_threads == 0 {
            return Err(Error::Empty("threads per block"));
        }
        let supported =
            self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)?;
        if supported == 0 {
            return Err(Error::NoCooperativeLaunch {
                device: self.name(),
            });
        }
        // cudarc's occupancy query does not make the kernel's context current: with several
        // GPUs open, the last one used may be.
        self.context()
            .bind_to_thread()
            .map_err(|e| self.driver_error("binding the context", e))?;
        let blocks_per_sm = kernel
            .function()
            .occupancy_max_active_blocks_per_multiprocessor(
                block_threads,
                dyn_smem_bytes as usize,
                None,
            )
            .map_err(|e| self.driver_error(&format!("occupancy of `{}`", kernel.name()), e))?;
        let sms = self.sm_count();
        Ok(CoopLimit {
            blocks_per_sm,
            sms,
            max_blocks: blocks_per_sm.saturating_mul(sms),
        })
    }

    /// Checks that `grid_blocks` blocks fit in one cooperative launch, or says which limit
    /// they exceed ([`Error::GridTooLarge`]). [`Launch::launch_cooperative`](crate::Launch::launch_cooperative)
    /// calls it; call it yourself before cudarc's `LaunchArgs::launch_cooperative`.
    pub fn check_cooperative(
        &self,
        kernel: &Kernel,
        grid_blocks: u32,
        block_threads: u32,
        dyn_smem_bytes: u32,
    ) -> Result<CoopLimit> {
        if grid_blocks == 0 {
            return Err(Error::Empty("grid blocks"));
        }
        let limit = self.cooperative_limit(kernel, block_threads, dyn_smem_bytes)?;
        if grid_blocks > limit.max_blocks {
            return Err(Error::GridTooLarge {
                kernel: kernel.name().to_string(),
                requested_blocks: grid_blocks,
                limit,
                block_threads,
            });
        }
        Ok(limit)
    }

    /// A 1-D [`LaunchConfig`] of `grid_blocks` x `block_threads` after
    /// [`check_cooperative`](Self::check_cooperative) accepted it: pass it to cudarc's
    /// `LaunchArgs::launch_cooperative` (or use [`Launch::launch_cooperative`](crate::Launch::launch_cooperative),
    /// which checks any grid itself).
    pub fn cooperative_config(
        &self,
        kernel: &Kernel,
        grid_blocks: u32,
        block_threads: u32,
        dyn_smem_bytes: u32,
    ) -> Result<LaunchConfig> {
        self.check_cooperative(kernel, grid_blocks, block_threads, dyn_smem_bytes)?;
        Ok(LaunchConfig {
            grid_dim: (grid_blocks, 1, 1),
            block_dim: (block_threads, 1, 1),
            shared_mem_bytes: dyn_smem_bytes,
        })
    }
}
