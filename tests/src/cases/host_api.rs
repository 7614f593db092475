//! The host crate's typed API end to end (kernels: tests/kernels/src/host_api.rs): a module
//! loaded from PTX text (`Device::load_ptx_str`), `launch!` in all its forms (plain, by kernel or
//! by `module.name`, arguments by value and by reference; cooperative with a `GridBarrier`;
//! clusters), device statics read and written from the host (`Module::read_global`,
//! `write_global`, `global_ptr`), and the errors each refuses with. Every value is checked.

use crate::{clusters_or_skip, Ctx, GpuTest, KERNELS_PTX};
use ptx_sync_host::{launch, ClusterConfig, Error, Module};
use ptx_sync_testkit::Result;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
/// What the module loaded from text is called.
const EMBEDDED: &str = "ptx_sync_test_kernels.ptx (embedded)";

/// The suite's PTX, read into a string and loaded with `load_ptx_str`.
fn module(ctx: &Ctx) -> Result<Module> {
    let path = ctx.ptx_dir.join(KERNELS_PTX);
    let ptx = std::fs::read_to_string(&path)
        .map_err(|err| format!("reading {}: {err}", path.display()))?;
    let module = ctx.gpu.load_ptx_str(EMBEDDED, &ptx)?;
    if module.name() != EMBEDDED {
        return Err(format!("module name {:?}, expected {EMBEDDED:?}", module.name()).into());
    }
    Ok(module)
}

/// `host_api_affine`'s value for thread `i`.
fn affine(i: u64, a: u64, b: i32, add_one: bool, shift: u8, half: f32) -> u64 {
    a.wrapping_mul(i)
        .wrapping_add(b as i64 as u64)
        .wrapping_add(add_one as u64)
        .wrapping_add(1u64 << (shift & 63))
        .wrapping_add((half * 2.0) as u64)
}

/// `out[..n]` is `want(i)`, the rest still `sentinel`.
fn check_words(
    what: &str,
    out: &[u64],
    n: usize,
    sentinel: u64,
    want: impl Fn(u64) -> u64,
) -> Result<()> {
    for (i, &got) in out.iter().enumerate() {
        let expected = if i < n { want(i as u64) } else { sentinel };
        if got != expected {
            return Err(format!("{what}: out[{i}] = {got:#x}, expected {expected:#x}").into());
        }
    }
    Ok(())
}

/// A module from a string; `launch!(module.name<<<..>>>)` with a 2-D grid and block and
/// `launch!(kernel<<<..>>>)` with 3-D ones through a field path (`ctx.gpu`), with arguments of
/// 8, 4, 8, 4, 1, 1 and 4 bytes, by value and by reference; `Debug` of the types involved.
fn ptx_str_plain_launch(ctx: &Ctx) -> Result<String> {
    const SENTINEL: u64 = 0xdead_beef_dead_beef;
    let module = module(ctx)?;
    let gpu = &ctx.gpu;

    // Grid (20, 2) x block (128, 2): 10240 threads for 10000 words.
    let (n, len) = (10_000u32, 10_240usize);
    let out = gpu.upload(&vec![SENTINEL; len])?;
    let (a, add_one) = (0x1_0000_0001u64, true);
    unsafe {
        launch!(module.host_api_affine<<<(20, 2), (128, 2), 0, gpu>>>(
            &out, n, &a, -7i32, &add_one, 5u8, 1.5f32
        ))
    }?;
    gpu.wait(TIMEOUT)?;
    let got = gpu.download(&out)?;
    check_words("module.name form", &got, n as usize, SENTINEL, |i| {
        affine(i, a, -7, true, 5, 1.5)
    })?;

    // Grid (5, 2, 2) x block (64, 2, 2): 5120 threads for 5000 words.
    let kernel = module.kernel("host_api_affine")?;
    let (n2, len2) = (5_000u32, 5_120usize);
    let mut out2 = gpu.upload(&vec![SENTINEL; len2])?;
    let (b, shift) = (i32::MIN, 63u8);
    unsafe {
        launch!(kernel<<<(5, 2, 2), (64, 2, 2), 0, ctx.gpu>>>(
            &mut out2, &n2, 3u64, &b, false, &shift, 0.0f32
        ))
    }?;
    gpu.wait(TIMEOUT)?;
    let got = gpu.download(&out2)?;
    check_words("kernel form", &got, n2 as usize, SENTINEL, |i| {
        affine(i, 3, i32::MIN, false, 63, 0.0)
    })?;

    // Debug says what each thing is.
    let launch_debug = format!("{:?}", gpu.launch_builder(&kernel));
    let debug = [
        (format!("{gpu:?}"), vec![gpu.name(), "sm_".to_string()]),
        (format!("{module:?}"), vec![EMBEDDED.to_string()]),
        (
            format!("{kernel:?}"),
            vec!["host_api_affine".to_string(), EMBEDDED.to_string()],
        ),
        (launch_debug, vec!["host_api_affine".to_string()]),
    ];
    for (text, parts) in &debug {
        for part in parts {
            if !text.contains(part.as_str()) {
                return Err(format!("`{part}` missing from the Debug output {text}").into());
            }
        }
    }
    Ok(format!(
        "module from a {}-byte string; {n} + {n2} words exact through launch!(module.name) \
         with a 2-D grid and launch!(kernel) with a 3-D one, u64/u32/i32/bool/u8/f32 \
         arguments by value and by reference; Debug names the GPU, module and kernel",
        std::fs::metadata(ctx.ptx_dir.join(KERNELS_PTX))
            .map(|m| m.len())
            .unwrap_or(0)
    ))
}

/// `launch!(cooperative ..)` of a `GridBarrier` kernel at the occupancy limit: every round's
/// count is the grid's thread count before any thread goes on; one block more is
/// `Error::GridTooLarge`, before anything is launched.
fn cooperative_grid_barrier(ctx: &Ctx) -> Result<String> {
    const THREADS: u32 = 256;
    const ROUNDS: u32 = 1_000;
    let module = module(ctx)?;
    let gpu = &ctx.gpu;
    let kernel = module.kernel("host_api_grid_rounds")?;
    let limit = gpu.cooperative_limit(&kernel, THREADS, 0)?;
    let blocks = limit.max_blocks;
    let bar = gpu.zeros::<u32>(1)?;
    let counts = gpu.zeros::<u32>(ROUNDS as usize)?;
    let errors = gpu.zeros::<u32>(1)?;
    let got = unsafe {
        launch!(cooperative kernel<<<blocks, THREADS, 0, gpu>>>(&bar, &counts, ROUNDS, &errors))
    }?;
    gpu.wait(TIMEOUT)?;
    if got != limit {
        return Err(format!(
            "launch_cooperative checked against {got:?}, cooperative_limit says {limit:?}"
        )
        .into());
    }
    let total = blocks * THREADS;
    let got_counts = gpu.download(&counts)?;
    if let Some((r, c)) = got_counts.iter().enumerate().find(|(_, &c)| c != total) {
        return Err(format!("round {r}: count {c}, expected {total}").into());
    }
    let late = gpu.download(&errors)?[0];
    if late != 0 {
        return Err(format!(
            "{late} threads read a round's count before every thread had added to it"
        )
        .into());
    }

    // One block more cannot be resident: refused, not launched (it would hang).
    let too_many = blocks + 1;
    let refused = unsafe {
        launch!(cooperative module.host_api_grid_rounds<<<too_many, THREADS, 0, gpu>>>(
            &bar, &counts, ROUNDS, &errors
        ))
    };
    match refused {
        Err(Error::GridTooLarge {
            kernel,
            requested_blocks,
            limit: l,
            block_threads,
        }) if kernel == "host_api_grid_rounds"
            && requested_blocks == too_many
            && l == limit
            && block_threads == THREADS => {}
        Err(other) => {
            return Err(format!("{too_many} blocks: expected GridTooLarge, got {other}").into())
        }
        Ok(_) => return Err(format!("{too_many} blocks: launched, expected GridTooLarge").into()),
    }
    gpu.wait(TIMEOUT)?;
    Ok(format!(
        "{blocks} blocks ({} per SM x {} SMs) x {THREADS} threads, {ROUNDS} GridBarrier rounds: \
         every count {total} and seen complete by every thread; {too_many} blocks refused with \
         GridTooLarge",
        limit.blocks_per_sm, limit.sms
    ))
}

/// `launch!(cluster ..)` (sm_90): every block sees its cluster index, rank and cluster size
/// as the launch laid them out, for clusters of 2 and 4 blocks, by kernel and by
/// `module.name`; a grid that is not a whole number of clusters is `Error::BadCluster`.
fn cluster_launch(ctx: &Ctx) -> Result<String> {
    const THREADS: u32 = 128;
    const TAG: u32 = 7;
    ctx.require_sm90("thread-block clusters need")?;
    let module = module(ctx)?;
    let gpu = &ctx.gpu;
    let kernel = module.kernel("host_api_cluster_shape")?;
    let clusters = gpu.sm_count();
    let mut checked = 0;
    for cluster_blocks in [2u32, 4] {
        let cfg = ClusterConfig::linear(clusters, cluster_blocks, THREADS, 0);
        let blocks = clusters * cluster_blocks;
        let out = gpu.zeros::<u32>(blocks as usize)?;
        let result = if cluster_blocks == 2 {
            unsafe { launch!(cluster kernel<<<cfg, gpu>>>(&out, TAG)) }
        } else {
            unsafe { launch!(cluster module.host_api_cluster_shape<<<cfg, ctx.gpu>>>(&out, &TAG)) }
        };
        let limit = clusters_or_skip(result)?;
        gpu.wait(TIMEOUT)?;
        if limit.max_cluster_blocks < cluster_blocks || limit.max_active_clusters == 0 {
            return Err(format!("clusters of {cluster_blocks} launched under {limit:?}").into());
        }
        let got = gpu.download(&out)?;
        for (b, &v) in got.iter().enumerate() {
            let b = b as u32;
            let want =
                TAG + 10_000 * (b / cluster_blocks) + 100 * (b % cluster_blocks) + cluster_blocks;
            if v != want {
                return Err(format!(
                    "clusters of {cluster_blocks}: block {b} wrote {v}, expected {want}"
                )
                .into());
            }
        }
        checked += blocks;
    }
    let mut bad = ClusterConfig::linear(clusters, 4, THREADS, 0);
    bad.grid_dim.0 += 1;
    let out = gpu.zeros::<u32>(bad.grid_dim.0 as usize)?;
    match unsafe { launch!(cluster kernel<<<bad, gpu>>>(&out, TAG)) } {
        Err(Error::BadCluster { kernel, why, .. })
            if kernel == "host_api_cluster_shape"
                && why.contains("is not a whole number of clusters (4, 1, 1)") => {}
        Err(other) => {
            return Err(format!(
                "a grid of {} blocks in clusters of 4: expected BadCluster, got {other}",
                bad.grid_dim.0
            )
            .into())
        }
        Ok(_) => return Err("a grid that is not a whole number of clusters was launched".into()),
    }
    Ok(format!(
        "{clusters} clusters of 2 and of 4 blocks x {THREADS} threads: cluster index, rank and size \
         right in all {checked} blocks; a grid of {} blocks in clusters of 4 refused with BadCluster",
        bad.grid_dim.0
    ))
}

/// A `static` `Atomic<u32, Gpu>` counter and a `static mut` step: read back exactly after a
/// launch, written from the host, and seen by the next launch; a kernel given the counter's
/// `global_ptr` adds to the same word.
fn static_counter_read_write(ctx: &Ctx) -> Result<String> {
    const BLOCKS: u32 = 64;
    const THREADS: u32 = 256;
    const START: u32 = 1_000_000;
    const STEP: u32 = 3;
    let module = module(ctx)?;
    let gpu = &ctx.gpu;
    let threads = BLOCKS * THREADS;
    let read = |name: &str| module.read_global::<u32>(gpu, name);
    let (count0, step0) = (read("HOST_API_COUNTER")?, read("HOST_API_STEP")?);
    if (count0, step0) != (0, 1) {
        return Err(format!(
            "a fresh module's counter and step are {count0} and {step0}, expected 0 and 1"
        )
        .into());
    }
    for name in ["HOST_API_COUNTER", "HOST_API_STEP"] {
        let size = module.global_size(name)?;
        if size != 4 {
            return Err(format!("global_size({name}) = {size}, expected 4").into());
        }
    }

    let kernel = module.kernel("host_api_count")?;
    let first_seen = gpu.upload(&[u32::MAX])?;
    unsafe { launch!(kernel<<<BLOCKS, THREADS, 0, gpu>>>(&first_seen)) }?;
    gpu.wait(TIMEOUT)?;
    let (count1, seen1) = (read("HOST_API_COUNTER")?, gpu.download(&first_seen)?[0]);
    if (count1, seen1) != (threads, 0) {
        return Err(format!(
            "first launch: counter {count1} (expected {threads}), lowest value seen {seen1} (expected 0)"
        ).into());
    }

    module.write_global(gpu, "HOST_API_COUNTER", &START)?;
    module.write_global(gpu, "HOST_API_STEP", &STEP)?;
    let (count_w, step_w) = (read("HOST_API_COUNTER")?, read("HOST_API_STEP")?);
    if (count_w, step_w) != (START, STEP) {
        return Err(format!("wrote {START} and {STEP}, read back {count_w} and {step_w}").into());
    }
    let first_seen = gpu.upload(&[u32::MAX])?;
    unsafe { launch!(kernel<<<BLOCKS, THREADS, 0, gpu>>>(&first_seen)) }?;
    gpu.wait(TIMEOUT)?;
    let want = START + STEP * threads;
    let (count2, seen2) = (read("HOST_API_COUNTER")?, gpu.download(&first_seen)?[0]);
    if (count2, seen2) != (want, START) {
        return Err(format!(
            "second launch: counter {count2} (expected {want}), lowest value seen {seen2} (expected {START}, the value written)"
        ).into());
    }

    // The counter's address as a kernel argument (a u64 by value for a `*mut u32`).
    let ptr = module.global_ptr("HOST_API_COUNTER")?;
    unsafe { launch!(module.host_api_add<<<1, 32, 0, gpu>>>(ptr, 5u32)) }?;
    gpu.wait(TIMEOUT)?;
    let count3 = read("HOST_API_COUNTER")?;
    if count3 != want + 5 {
        return Err(format!(
            "after adding 5 through global_ptr {ptr:#x}: counter {count3}, expected {}",
            want + 5
        )
        .into());
    }
    Ok(format!(
        "static Atomic<u32, Gpu> counter: 0 -> {threads} after {threads} adds; wrote {START} and \
         step {STEP}, the next launch started from {START} and ended at {want}; +5 through \
         global_ptr -> {count3}"
    ))
}

/// What the new API refuses, and how it says so: a missing static, a static of another size,
/// a missing kernel through `launch!(module.name)`, a zero block, and (where the driver reports
/// parameters) arguments of the wrong number or size.
fn errors(ctx: &Ctx) -> Result<String> {
    let module = module(ctx)?;
    let gpu = &ctx.gpu;
    let expect = |what: &str, got: Option<Error>, want: &str| -> Result<()> {
        match got {
            Some(err) if err.to_string() == want => Ok(()),
            Some(err) => Err(format!("{what}: got `{err}`, expected `{want}`").into()),
            None => Err(format!("{what}: succeeded, expected `{want}`").into()),
        }
    };

    let missing = module
        .read_global::<u32>(gpu, "HOST_API_NO_SUCH_STATIC")
        .err();
    if !matches!(&missing, Some(Error::GlobalNotFound { module: m, name })
        if m == EMBEDDED && name == "HOST_API_NO_SUCH_STATIC")
    {
        return Err(format!("read_global of a missing static: {missing:?}").into());
    }
    expect(
        "read_global of a missing static",
        missing,
        &format!("no global `HOST_API_NO_SUCH_STATIC` in {EMBEDDED} (is it a #[unsafe(no_mangle)] static of the kernel crate?)"),
    )?;
    // From a file, the module is called by its path.
    let path = ctx.ptx_dir.join(KERNELS_PTX);
    let from_file = gpu.load_ptx(&path)?;
    expect(
        "global_ptr of a missing static",
        from_file.global_ptr("HOST_API_NO_SUCH_STATIC").err(),
        &format!(
            "no global `HOST_API_NO_SUCH_STATIC` in {} (is it a #[unsafe(no_mangle)] static of the kernel crate?)",
            path.display()
        ),
    )?;

    let wide = module.read_global::<u64>(gpu, "HOST_API_COUNTER").err();
    if !matches!(&wide, Some(Error::GlobalSize { name, expected: 8, found: 4 }) if name == "HOST_API_COUNTER")
    {
        return Err(format!("read_global::<u64> of a u32 static: {wide:?}").into());
    }
    expect(
        "read_global::<u64> of a u32 static",
        wide,
        "global `HOST_API_COUNTER` is 4 bytes, but the host type is 8 bytes",
    )?;
    expect(
        "write_global::<u16> of a u32 static",
        module.write_global(gpu, "HOST_API_STEP", &9u16).err(),
        "global `HOST_API_STEP` is 4 bytes, but the host type is 2 bytes",
    )?;
    let step = module.read_global::<u32>(gpu, "HOST_API_STEP")?;
    if step != 1 {
        return Err(format!("a refused write changed HOST_API_STEP to {step}").into());
    }

    let out = gpu.zeros::<u64>(64)?;
    let no_kernel = unsafe { launch!(module.host_api_no_such_kernel<<<1, 64, 0, gpu>>>(&out)) };
    expect(
        "launch! of a missing kernel",
        no_kernel.err(),
        &format!("no kernel `host_api_no_such_kernel` in {EMBEDDED} (is it #[unsafe(no_mangle)] pub extern \"ptx-kernel\"?)"),
    )?;
    let kernel = module.kernel("host_api_affine")?;
    let zero_block = unsafe {
        launch!(kernel<<<1, (64, 0, 1), 0, gpu>>>(&out, 64u32, 1u64, 0i32, false, 0u8, 0.0f32))
    };
    expect(
        "a zero block dimension",
        zero_block.err(),
        "block dimension must not be zero",
    )?;

    let arguments = match kernel.param_sizes() {
        None => {
            "this driver reports no parameter sizes (CUDA < 12.4): argument checks not exercised"
                .to_string()
        }
        Some(sizes) => {
            if sizes != [8, 4, 8, 4, 1, 1, 4] {
                return Err(format!(
                    "host_api_affine's parameter sizes: {sizes:?}, expected [8, 4, 8, 4, 1, 1, 4]"
                )
                .into());
            }
            // An unsuffixed literal is an i32: 4 bytes for the u64 `a`.
            let literal = unsafe {
                launch!(kernel<<<1, 64, 0, gpu>>>(&out, 64u32, 7, 0i32, false, 0u8, 0.0f32))
            };
            expect(
                "an i32 literal for a u64 parameter",
                literal.err(),
                "arguments of `host_api_affine`: argument 2 (counting from 0) is 4 bytes, but the parameter is 8 bytes (an integer literal without a suffix is an i32: write 5u64)",
            )?;
            let short = unsafe { launch!(kernel<<<1, 64, 0, gpu>>>(&out, 64u32, 1u64)) };
            expect(
                "three arguments of seven",
                short.err(),
                "arguments of `host_api_affine`: 3 given (8, 4, 8 bytes), but the kernel takes 7 (8, 4, 8, 4, 1, 1, 4 bytes)",
            )?;
            "an i32 literal for a u64 and 3 arguments of 7 refused with BadArguments".to_string()
        }
    };
    gpu.wait(TIMEOUT)?;
    Ok(format!(
        "GlobalNotFound (module from a string and from a file), GlobalSize (read as u64, written \
         as u16, the static unchanged), KernelNotFound through launch!(module.name), a zero \
         block refused; {arguments}"
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "host_api_ptx_str_plain_launch" => ptx_str_plain_launch,
        "host_api_cooperative_grid_barrier" => cooperative_grid_barrier,
        "host_api_cluster_launch" => cluster_launch,
        "host_api_static_counter_read_write" => static_counter_read_write,
        "host_api_errors" => errors,
    ]
}
