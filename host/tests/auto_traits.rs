//! The auto traits of the host crate's handles and buffers, pinned at compile time. Each buffer
//! has an `unsafe impl Send/Sync`: a device or mapped address owned by the buffer, freed once
//! in `Drop`, with every access through `&self` going through the driver or through atomics.
//! A change that takes one of the traits away (a new field holding an `Rc`, a raw pointer
//! without its impl) stops this file from compiling, and the error names the type.

use ptx_sync_host::{
    Device, Kernel, ManagedBuffer, MappedBuffer, Module, PeerBuffer, PortableBuffer,
};

fn is_send<T: ?Sized + Send>() {}
fn is_sync<T: ?Sized + Sync>() {}

/// `send_and_sync!(T, ...)`: each type is `Send` and `Sync`; returns how many were pinned.
macro_rules! send_and_sync {
    ($($t:ty),* $(,)?) => {{
        $( is_send::<$t>(); is_sync::<$t>(); )*
        [$(stringify!($t)),*].len()
    }};
}

#[test]
fn handles_and_buffers_are_send_and_sync() {
    // A Device, its modules and kernels go to worker threads (the README's two-stream pattern
    // and many host threads on one Device).
    let handles = send_and_sync!(Device, Module, Kernel);
    // Buffers: one per word type of the mapped and managed kinds, and the device-memory ones.
    let buffers = send_and_sync!(
        MappedBuffer<u32>,
        MappedBuffer<i32>,
        MappedBuffer<u64>,
        MappedBuffer<i64>,
        MappedBuffer<f32>,
        MappedBuffer<f64>,
        ManagedBuffer<u32>,
        ManagedBuffer<u64>,
        PortableBuffer<u32>,
        PortableBuffer<u64>,
        PeerBuffer<u32>,
        PeerBuffer<[u64; 2]>,
    );
    assert_eq!((handles, buffers), (3, 12));
}

#[cfg(feature = "nvshmem")]
#[test]
fn nvshmem_buffers_are_send_and_sync() {
    use ptx_sync_host::nvshmem::SymmetricBuffer;
    assert_eq!(
        send_and_sync!(SymmetricBuffer<u32>, SymmetricBuffer<u64>),
        2
    );
}
