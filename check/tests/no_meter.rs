//! A test binary without the counting allocator: the check fails and says what to add, rather
//! than report 0 bytes for every payload.

use hardpack_check::check;

#[test]
fn without_the_counting_allocator_the_check_fails_loudly() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hardpack-check-no-meter-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("one"), [0x01]).unwrap();
    let report = check::<u8>().payloads(&dir).run();
    assert!(!report.is_hardened());
    let failure = report.failure.as_deref().unwrap_or_default();
    assert!(failure.contains("CountingAlloc"), "{failure}");
    assert!(
        report.text().contains("the check could not finish"),
        "{}",
        report.text()
    );
}
