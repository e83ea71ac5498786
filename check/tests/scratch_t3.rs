use hardpack_check::{check, CountingAlloc};
use serde::{Deserialize, Serialize};
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;
#[derive(Debug, Serialize, Deserialize)] #[allow(dead_code)] #[serde(tag = "t", content = "c")] pub enum T23E0 { T23E0V0, T23E0V1(u32, T23E1), T23E0V2(Option<u8>, T23E2), T23E0V3(bool) }
#[derive(Debug, Serialize, Deserialize)] #[allow(dead_code)] pub enum T23E1 { T23E1V0, T23E1V1 { f0: u8, #[serde(rename = "r_f1")] f1: [i64; 3] } }
#[derive(Debug, Serialize, Deserialize)] #[allow(dead_code)] pub enum T23E2 { T23E2V0, T23E2V1(serde_json::Value, u32), T23E2V2, T23E2V3(i64, i64) }
#[test]
fn t23() {
    let report = check::<T23E0>().run();
    assert!(report.is_hardened(), "{}", report.text());
}
