//! `ClusterShared<T>`: a handle in the `.shared::cluster` window (sm_90 GPUs only; the
//! parent module's `space_handle!` gives it the operations of every handle).

use super::{Atomic, Bits};
use crate::backend::atomic::space;
use crate::backend::on_target;
use crate::order;
use crate::scope::Scope;
use crate::shared::Shared;
use core::marker::PhantomData;
use core::sync::atomic::Ordering;

/// A `T` in the shared memory of some block of this cluster, addressed in the
/// `.shared::cluster` window (distributed shared memory; sm_90, GPU only). Made with
/// [`Shared::map`]. A raw pointer: every access is `unsafe`.
///
/// The owning block must still be running while others access its shared memory (have every
/// block of the cluster `cluster::sync()` before it exits), as for `cluster::map_shared`.
///
/// ```ignore
/// use ptx_sync::{block, cluster, shared, Atomic, Cluster, Ordering::Relaxed};
///
/// /// Every thread of the cluster counts itself on block 0's counter.
/// ///
/// /// # Safety
/// /// A launch with clusters; `out` holds one `u32` per cluster.
/// #[unsafe(no_mangle)]
/// pub unsafe extern "ptx-kernel" fn doc_cluster_shared_count(out: *mut u32) {
///     shared! { static COUNT: Atomic<u32, Cluster>; }
///     unsafe {
///         if cluster::block_rank() == 0 && block::thread_rank() == 0 {
///             COUNT.as_ptr().write(Atomic::new(0));
///         }
///         cluster::sync(); // block 0's zero is visible to the cluster
///         let count = COUNT.shared().map(0); // mapa.shared::cluster.u32: block 0's copy
///         count.red_add(1, Relaxed); // red.relaxed.cluster.shared::cluster.add.u32
///         cluster::sync(); // every add is done (and block 0 stays until then)
///         if cluster::block_rank() == 0 && block::thread_rank() == 0 {
///             out.add(cluster::index_x() as usize).write(count.load(Relaxed));
///         }
///     }
/// }
/// ```
#[derive(Debug)]
pub struct ClusterShared<T> {
    addr: u32,
    _t: PhantomData<*mut T>,
}

impl<T> Clone for ClusterShared<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ClusterShared<T> {}

impl<T> Shared<T> {
    /// The same variable in the shared memory of block `rank` of this cluster (sm_90, GPU
    /// only; `rank` < `cluster::block_count()`): `cluster.map_shared_rank(&x, rank)` of CUDA
    /// C++, as a `.shared::cluster` address. A `.shared::cta` address is also a
    /// `.shared::cluster` address of this block (PTX ISA, "Shared memory window"), and `mapa`
    /// moves it to block `rank`.
    ///
    /// PTX: `mapa.shared::cluster.u32 d, a, rank;`
    #[inline(always)]
    pub fn map(self, rank: u32) -> ClusterShared<T> {
        ClusterShared {
            addr: space::map_shared_cluster(self.address(), rank),
            _t: PhantomData,
        }
    }
}

impl<T> ClusterShared<T> {
    /// The location `n` elements further on (no check that it stays in bounds).
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU (overflow checks), panics when `n * size_of::<T>()` overflows
    /// `usize`, where `pointer::wrapping_add` would wrap; release builds wrap.
    #[allow(clippy::should_implement_trait)] // named after `pointer::add`, not `ops::Add`
    #[inline(always)]
    pub fn add(self, n: usize) -> ClusterShared<T> {
        ClusterShared {
            addr: self
                .addr
                .wrapping_add((n * core::mem::size_of::<T>()) as u32),
            _t: PhantomData,
        }
    }

    /// The same address as a `U` (no check of `U`'s alignment).
    #[inline(always)]
    pub fn cast<U>(self) -> ClusterShared<U> {
        ClusterShared {
            addr: self.addr,
            _t: PhantomData,
        }
    }

    /// The `.shared::cluster` address.
    #[inline(always)]
    pub fn address(self) -> u32 {
        self.addr
    }

    /// The same location as a generic pointer.
    ///
    /// PTX: `cvta.shared::cluster.u64`.
    #[inline(always)]
    pub fn generic(self) -> *mut T {
        space::shared_cluster_to_generic(self.addr) as *mut T
    }
}

/// The doc examples' setup for a `ClusterShared` handle (GPU-only: never run as a doctest).
macro_rules! cluster_doc {
    ($t:ident, $v:literal) => {
        concat!(
            "use ptx_sync::{shared, Atomic, Cluster, Ordering::*};\n",
            "shared! { static A: Atomic<",
            stringify!($t),
            ", Cluster>; }\n",
            "// Block 0 of the cluster initializes its own, then `cluster::sync()`.\n",
            "let a = A.shared().map(0); // block 0's variable"
        )
    };
}

space_handle!(ClusterShared, "shared::cluster", reg32, cluster_doc);
