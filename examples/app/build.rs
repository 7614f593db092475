//! Builds the kernel crates (../kernels, ../host-tested-kernels) to PTX; src/lib.rs embeds
//! them with `include_str!(env!("KERNELS_PTX"))` and `include_str!(env!("HOST_TESTED_KERNELS_PTX"))`.

fn main() -> Result<(), ptx_sync_build::Error> {
    // No `.arch(..)`: the builder's default, `$PTX_SYNC_ARCH` or else sm_90 (`cargo xtask stage
    // --arch` sets the variable; the script reruns when it changes).
    ptx_sync_build::PtxBuilder::new("../kernels").build()?;
    // Example 05's kernels: a crate whose `cargo test` also runs them on the host (its
    // crate-type is ["cdylib", "rlib"]; the builder takes the cdylib's PTX as for any other).
    ptx_sync_build::PtxBuilder::new("../host-tested-kernels").build()?;
    Ok(())
}
