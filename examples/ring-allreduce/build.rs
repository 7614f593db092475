//! Builds ../ring-allreduce-kernels to PTX and links NVSHMEM's device bitcode into it
//! (`.nvshmem(true)`: found in $NVSHMEM_HOME, python3's `nvidia.nvshmem` package, or fetched,
//! pinned and hash-checked, into the target directory).

fn main() -> Result<(), ptx_sync_build::Error> {
    ptx_sync_build::PtxBuilder::new("../ring-allreduce-kernels")
        .nvshmem(true)
        .build()?;
    Ok(())
}
