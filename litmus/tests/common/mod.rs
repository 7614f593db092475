//! What the litmus test files share: a geometry constructor, and the brute-force check of where a
//! launch puts every (instance, role). Each test file uses some of it.
#![allow(dead_code)]

use ptx_sync_litmus::launch::Launch;
use ptx_sync_litmus::plan::Geometry;

pub const fn geometry(grid_blocks: u32, block_threads: u32) -> Geometry {
    Geometry {
        grid_blocks,
        block_threads,
    }
}

/// For every (instance, role): the thread `(logical block, lane)` that plays it, by brute force
/// over every testing thread and role. Panics if a pair is played twice or not at all.
pub fn players(l: &Launch, what: &str) -> Vec<(u32, u32)> {
    let n = l.instances() as usize;
    let roles = l.roles as usize;
    let mut by = vec![(u32::MAX, u32::MAX); n * roles];
    for b in 0..l.testing_blocks {
        for lane in 0..l.block_threads {
            for r in 0..l.roles {
                let i = l.instance(b, lane, r) as usize;
                assert!(i < n, "{what}: instance {i} of {n} (block {b} lane {lane})");
                let slot = &mut by[i * roles + r as usize];
                assert_eq!(
                    *slot,
                    (u32::MAX, u32::MAX),
                    "{what}: role {r} of instance {i} played twice"
                );
                *slot = (b, lane);
            }
        }
    }
    assert!(
        by.iter().all(|&p| p != (u32::MAX, u32::MAX)),
        "{what}: some (instance, role) never played"
    );
    by
}

/// Whether `key` of the (few) items is pairwise distinct.
pub fn distinct<T: Copy, K: PartialEq>(items: &[T], key: impl Fn(T) -> K) -> bool {
    (0..items.len()).all(|a| (a + 1..items.len()).all(|b| key(items[a]) != key(items[b])))
}

/// Where the roles of every instance run: once each, in distinct CTAs (across) or in one CTA
/// and distinct warps (within).
pub fn assert_placement(l: &Launch, what: &str) {
    let roles = l.roles as usize;
    let w = l.block_threads as usize;
    for (i, p) in players(l, what).chunks(roles).enumerate() {
        if l.within_cta != 0 {
            assert!(
                p.iter().all(|&(b, _)| b as usize == i / w),
                "{what}: instance {i}'s roles not all in its own block: {p:?}"
            );
            assert!(
                distinct(p, |(_, lane)| lane / 32),
                "{what}: instance {i}'s roles share a warp: {p:?}"
            );
        } else {
            assert!(
                distinct(p, |(b, _)| b),
                "{what}: instance {i}'s roles share a CTA: {p:?}"
            );
        }
    }
}
