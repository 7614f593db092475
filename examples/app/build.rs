//! Builds the kernel crate (../kernels) to PTX; main.rs embeds it with
//! `include_str!(env!("KERNELS_PTX"))`.

fn main() -> Result<(), ptx_sync_build::Error> {
    // No `.arch(..)`: the builder's default, `$PTX_SYNC_ARCH` or else sm_90 (`cargo xtask stage
    // --arch` sets the variable; the script reruns when it changes).
    ptx_sync_build::PtxBuilder::new("../kernels").build()?;
    Ok(())
}
