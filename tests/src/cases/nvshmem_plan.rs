//! What the NVSHMEM cases run, written once for the kernels (tests/nvshmem-kernels, through
//! `#[path]`) and the host side (tests/src/cases/nvshmem.rs): buffer layouts, payload tags and
//! the per-PE statistics words. `no_std`: `core` only.

/// Payload word `i` of the message PE `pe` sends in round `r` (never 0: a zeroed buffer is
/// never a right payload).
#[inline(always)]
pub fn tag(pe: u32, r: u32, i: u32) -> u64 {
    let x = ((pe as u64) << 48) ^ ((r as u64) << 24) ^ (i as u64);
    // splitmix64's finalizer: neighbouring rounds and words differ in every bit position.
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) | 1
}

/// Statistics words every case's kernel adds to (u32, in this PE's own device memory).
pub mod stat {
    /// Payload words (or counter reads) that were right.
    pub const OK: usize = 0;
    /// Payload words (or counter reads) that were wrong.
    pub const WRONG: usize = 1;
    /// Rounds this PE finished.
    pub const ROUNDS: usize = 2;
    /// Case-specific: the lock cases' final counter, the handoff's stale words.
    pub const EXTRA: usize = 3;
    /// Words of the statistics buffer.
    pub const LEN: usize = 8;
}

/// The ring: one block per PE; PE 0 starts each round, every PE checks the message from its
/// left neighbour and forwards its own to the right. Symmetric `u64` words: the receive area
/// at 0, this PE's send area at `words`; one signal word.
pub mod ring {
    /// Words the data buffer needs.
    pub const fn len(words: u32) -> usize {
        2 * words as usize
    }
}

/// All-to-all: each PE puts `words` words into slot `me` of every other PE, with a counted
/// signal (`SignalOp::Add` 1), waits for `n - 1` signals per round, checks every slot, and
/// meets the others at `sync_all` before the next round overwrites a slot.
pub mod all_to_all {
    /// Words the data buffer needs for `n` PEs: `n` receive slots, then the send area.
    pub const fn len(words: u32, n: u32) -> usize {
        (n as usize + 1) * words as usize
    }
}

/// Barrier rounds: every thread adds 1 to word 0 of every PE (`atomic_add`), then
/// `barrier_all`; every PE's word must then be exactly `n * threads * (r + 1)`, read locally
/// and by `atomic_fetch` from every peer; a second `barrier_all` ends the round.
pub mod rounds {
    /// Expected value of every PE's counter after round `r`.
    pub const fn expected(n: u32, threads: u32, r: u32) -> u64 {
        n as u64 * threads as u64 * (r as u64 + 1)
    }
}

/// The locks over PE 0's memory: a lock word and a counter, each on its own 128-byte line.
pub mod lock {
    /// Word (u64) of the lock.
    pub const LOCK: usize = 0;
    /// Word (u64) of the counter it protects.
    pub const COUNTER: usize = 16;
    /// Words (u64) of the buffer; our `Mutex<u64, Sys>` starts at word 0 instead.
    pub const LEN: usize = 64;
}

/// The handoff litmus: PE 0 writes `words` words into PE 1's buffer then raises PE 1's
/// signal; PE 1 waits for it and counts the words that are not yet the round's.
pub mod handoff {
    /// How PE 0 orders the data and the signal.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    #[repr(u32)]
    pub enum Variant {
        /// `put_signal`: the signal is applied after the data (NVSHMEM's guarantee).
        PutSignal = 0,
        /// `p` per word, `fence`, then `signal_op`: fence orders the puts before the signal.
        PutFenceSignal = 1,
        /// The same without the fence (a control: nothing orders them).
        PutNoFence = 2,
        /// The signal before the data (a control that must show stale words).
        SignalFirst = 3,
    }

    /// Every variant, in kernel-argument order.
    pub const ALL: [Variant; 4] = [
        Variant::PutSignal,
        Variant::PutFenceSignal,
        Variant::PutNoFence,
        Variant::SignalFirst,
    ];
}
