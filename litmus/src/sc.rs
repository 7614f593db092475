//! Sequential consistency by brute force: every interleaving of a shape's threads, run on one
//! memory. What it yields is the set of outcomes no memory model may forbid; the oracle
//! compares everything else against that set.

use crate::shapes::{Insn, Shape};
use std::collections::BTreeSet;

/// Every outcome some interleaving produces.
pub fn outcomes(shape: &Shape) -> BTreeSet<Vec<u32>> {
    let mut out = BTreeSet::new();
    let pcs = vec![0usize; shape.threads.len()];
    let regs: Vec<Vec<u32>> = vec![Vec::new(); shape.threads.len()];
    let mem = vec![0u32; shape.locations().max(1)];
    explore(shape, &pcs, &regs, &mem, &mut out);
    out
}

fn explore(
    shape: &Shape,
    pcs: &[usize],
    regs: &[Vec<u32>],
    mem: &[u32],
    out: &mut BTreeSet<Vec<u32>>,
) {
    let mut progressed = false;
    for t in 0..shape.threads.len() {
        let Some(&insn) = shape.threads[t].get(pcs[t]) else {
            continue;
        };
        progressed = true;
        let (mut pcs, mut regs, mut mem) = (pcs.to_vec(), regs.to_vec(), mem.to_vec());
        match insn {
            Insn::St(l, v) => mem[l] = v,
            Insn::Ld(l) => regs[t].push(mem[l]),
            Insn::Fence => {}
        }
        pcs[t] += 1;
        explore(shape, &pcs, &regs, &mem, out);
    }
    if !progressed {
        let mut o: Vec<u32> = regs.iter().flatten().copied().collect();
        o.extend(shape.finals.iter().map(|&l| mem[l]));
        out.insert(o);
    }
}
