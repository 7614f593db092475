//! The warp on the host: the emulated lanes of `warp::emulation` (feature `warp-emulation`),
//! or, outside them, a warp of one lane, lane 0, whose collectives see only itself.

/// The four ways a shuffle picks its source lane (`shfl.sync.mode`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Shfl {
    Idx,
    Up,
    Down,
    Bfly,
}

/// Every thread is a warp of one, lane 0. The emulation answers with these outside
/// `emulation::launch` too.
pub(crate) mod one_lane {
    pub(crate) fn lane() -> u32 {
        0
    }
    pub(crate) fn active_mask() -> u32 {
        1
    }
    pub(crate) fn sync(_mask: u32) {}
    pub(crate) fn match_any(_mask: u32, _value: u64) -> u32 {
        1
    }
    pub(crate) fn match_any_u32(_mask: u32, _value: u32) -> u32 {
        1
    }
    pub(crate) fn match_all(_mask: u32, _value: u64) -> Option<u32> {
        Some(1)
    }
    pub(crate) fn match_all_u32(_mask: u32, _value: u32) -> Option<u32> {
        Some(1)
    }
    pub(crate) fn ballot(_mask: u32, pred: bool) -> u32 {
        pred as u32
    }
    pub(crate) fn any(_mask: u32, pred: bool) -> bool {
        pred
    }
    pub(crate) fn all(_mask: u32, pred: bool) -> bool {
        pred
    }
    pub(crate) fn uni(_mask: u32, _pred: bool) -> bool {
        true
    }
    /// The only lane there is reads itself: its own value, whatever the source.
    pub(crate) fn shfl(_mode: super::Shfl, _mask: u32, word: u32, _b: u32) -> u32 {
        word
    }
    pub(crate) fn elect_one(_mask: u32) -> bool {
        true
    }
}

cfg_warp_emulation! {
    pub(crate) use crate::warp::emulation::{
        active_mask, all, any, ballot, elect_one, lane, match_all, match_all_u32, match_any,
        match_any_u32, sync, uni,
    };
    use crate::warp::emulation::shfl;
}
cfg_not_warp_emulation! {
    pub(crate) use one_lane::{
        active_mask, all, any, ballot, elect_one, lane, match_all, match_all_u32, match_any,
        match_any_u32, sync, uni,
    };
    use one_lane::shfl;
}

/// The lane mask registers, computed from [`lane`] as the GPU defines them.
pub(crate) fn lanemask_lt() -> u32 {
    (1 << lane()) - 1
}
pub(crate) fn lanemask_le() -> u32 {
    u32::MAX >> (31 - lane())
}
pub(crate) fn lanemask_eq() -> u32 {
    1 << lane()
}
pub(crate) fn lanemask_ge() -> u32 {
    u32::MAX << lane()
}
pub(crate) fn lanemask_gt() -> u32 {
    !(u32::MAX >> (31 - lane()))
}

pub(crate) fn shfl_idx(mask: u32, word: u32, b: u32) -> u32 {
    shfl(Shfl::Idx, mask, word, b)
}
pub(crate) fn shfl_up(mask: u32, word: u32, b: u32) -> u32 {
    shfl(Shfl::Up, mask, word, b)
}
pub(crate) fn shfl_down(mask: u32, word: u32, b: u32) -> u32 {
    shfl(Shfl::Down, mask, word, b)
}
pub(crate) fn shfl_bfly(mask: u32, word: u32, b: u32) -> u32 {
    shfl(Shfl::Bfly, mask, word, b)
}
