//! The litmus kernels run the shapes of `litmus/src/tests.rs` and nothing else: in each
//! kernel's PTX, the instructions between the `// litmus role N` markers are exactly the
//! shape's program under the variant's mapping (DEVELOPMENT.md "Orders and scopes -> PTX"), derived
//! here from the table. A kernel that drifted from its shape, a missing fence, or a wrong order
//! or scope fails this test. Built for sm_90 and sm_80 (ptxas acceptance: tests/tests/ptxas.rs).

use ptx_sync_litmus::oracle::Variant;
use ptx_sync_litmus::plan::kernel_name;
use ptx_sync_litmus::shapes::{Insn, Shape, SHAPES};
use ptx_sync_testkit::ptx;
use xtask::{build_ptx, workspace_root, Arch};

/// The expected instructions of `shape` as `variant`: for each role, its marker and then one
/// opcode per instruction.
fn expected(shape: &Shape, variant: Variant) -> Vec<String> {
    let scope = variant.scope();
    let sync = variant != Variant::Relaxed;
    let mut out = Vec::new();
    for (r, role) in shape.threads.iter().enumerate() {
        out.push(format!("// litmus role {r}"));
        for insn in role.iter() {
            match insn {
                Insn::St(..) if sync => out.push(format!("st.release.{scope}.b32")),
                Insn::St(..) => out.push(format!("st.relaxed.{scope}.b32")),
                Insn::Ld(_) if sync => out.push(format!("ld.acquire.{scope}.b32")),
                Insn::Ld(_) => out.push(format!("ld.relaxed.{scope}.b32")),
                Insn::Fence if sync => out.push(format!("fence.sc.{scope}")),
                Insn::Fence => {}
            }
        }
    }
    out.push("// litmus end".into());
    out
}

/// The opcode of `line` (trimmed) if it is a memory-model instruction: ld, st, fence, atom,
/// red, membar.
fn memory_op(line: &str) -> Option<String> {
    let op = ptx::opcode(line);
    ["ld.", "st.", "fence.", "atom.", "red.", "membar"]
        .iter()
        .any(|p| op.starts_with(p))
        .then(|| op.to_string())
}

/// The markers and the memory-model instructions (ld/st/fence/atom/red) from the first role
/// marker to the end marker, in order. Anything else (address arithmetic, moves) is left out.
fn observed(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in body.lines().map(str::trim) {
        if line.starts_with("// litmus role") || line == "// litmus end" {
            inside = line != "// litmus end";
            out.push(line.to_string());
            continue;
        }
        if !inside {
            continue;
        }
        out.extend(memory_op(line));
    }
    out
}

fn check(arch: Arch) {
    let ptx =
        build_ptx(&workspace_root().join("litmus/kernels"), arch).unwrap_or_else(|e| panic!("{e}"));
    let ptx = std::fs::read_to_string(&ptx).expect("read the PTX");
    let mut checked = 0;
    for shape in SHAPES {
        for variant in Variant::ALL {
            let name = kernel_name(shape, variant);
            assert_eq!(
                observed(ptx::body(&ptx, &name)),
                expected(shape, variant),
                "{arch} {name}: PTX differs from the shape {}",
                shape.name
            );
            checked += 1;
        }
    }
    assert_eq!(checked, SHAPES.len() * Variant::ALL.len());
}

#[test]
fn every_litmus_kernel_is_its_shape_sm_90() {
    check(Arch::Sm90);
}

#[test]
fn every_litmus_kernel_is_its_shape_sm_80() {
    check(Arch::Sm80);
}

#[test]
fn the_control_differs_from_the_claim() {
    // The relaxed control of MP has no acquire and no release: if it had, it could not show
    // the weak outcome it is there to show.
    let mp = SHAPES.iter().find(|s| s.name == "MP").unwrap();
    let relaxed = expected(mp, Variant::Relaxed).join(" ");
    assert!(!relaxed.contains("acquire") && !relaxed.contains("release"));
    let sb = SHAPES.iter().find(|s| s.name == "SB").unwrap();
    assert_eq!(
        expected(sb, Variant::Synchronized)
            .iter()
            .filter(|i| *i == "fence.sc.gpu")
            .count(),
        2
    );
}

/// The memory-model instructions of kernel `name` (all of its body).
fn ops(ptx: &str, name: &str) -> Vec<String> {
    ptx::body(ptx, name).lines().filter_map(memory_op).collect()
}

#[test]
fn handoff_controls_are_their_claims_with_every_order_relaxed() {
    let ptx = build_ptx(&workspace_root().join("litmus/kernels"), Arch::Sm90)
        .unwrap_or_else(|e| panic!("{e}"));
    let ptx = std::fs::read_to_string(&ptx).expect("read the PTX");
    let strong = |op: &String| {
        ["acquire", "release", "acq_rel", "fence", "membar"]
            .iter()
            .any(|s| op.contains(s))
    };
    for base in [
        "litmus_handoff_semaphore_lock",
        "litmus_handoff_semaphore_token",
        "litmus_handoff_latch",
    ] {
        let claim = ops(&ptx, base);
        let control = ops(&ptx, &format!("{base}_relaxed"));
        assert!(
            claim.iter().any(|o| o.contains("acquire"))
                && claim.iter().any(|o| o.contains("release")),
            "{base}: the claim has no acquire/release: {claim:?}"
        );
        assert!(
            !control.iter().any(strong),
            "{base}_relaxed: the control orders something: {control:?}"
        );
        // Same data accesses: the plain loads and stores of the payload are untouched.
        let plain = |v: &[String]| v.iter().filter(|o| o.contains(".global.")).count();
        assert_eq!(
            plain(&claim),
            plain(&control),
            "{base}: data accesses differ"
        );
    }
}
