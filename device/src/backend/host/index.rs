//! Thread indexing on the host: the calling thread's position, set by `index::run_grid`.

/// A thread's place in a launch, as the GPU's special registers give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Position {
    pub(crate) thread: [u32; 3],
    pub(crate) block: [u32; 3],
    pub(crate) block_dim: [u32; 3],
    pub(crate) grid_dim: [u32; 3],
}

/// A thread outside `run_grid`: the only thread of the only block.
pub(crate) const ALONE: Position = Position {
    thread: [0; 3],
    block: [0; 3],
    block_dim: [1; 3],
    grid_dim: [1; 3],
};

cfg_warp_emulation! {
    /// This thread's position: its place in the grid `run_grid` runs, else [`ALONE`].
    #[inline]
    pub(crate) fn position() -> Position {
        crate::index::run::position().unwrap_or(ALONE)
    }

    /// `block::sync()`: the block's barrier under `run_grid`; a block of one otherwise.
    pub(crate) fn block_sync() {
        crate::index::run::block_sync()
    }
}
cfg_not_warp_emulation! {
    /// This thread's position: without the emulation, always [`ALONE`].
    #[inline]
    pub(crate) fn position() -> Position {
        ALONE
    }

    /// `block::sync()` in a block of one thread: nothing to wait for.
    pub(crate) fn block_sync() {}
}

/// One register: the position's field.
macro_rules! register {
    ($($name:ident, $field:ident[$i:literal];)*) => {$(
        #[inline(always)]
        pub(crate) fn $name() -> u32 {
            position().$field[$i]
        }
    )*};
}

register!(
    thread_idx_x, thread[0];
    thread_idx_y, thread[1];
    thread_idx_z, thread[2];
    block_idx_x, block[0];
    block_idx_y, block[1];
    block_idx_z, block[2];
    block_dim_x, block_dim[0];
    block_dim_y, block_dim[1];
    block_dim_z, block_dim[2];
    grid_dim_x, grid_dim[0];
    grid_dim_y, grid_dim[1];
    grid_dim_z, grid_dim[2];
);
