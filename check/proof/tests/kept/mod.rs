// The generated types of other seeds that once showed a mismatch, as the generator wrote
// them then, with their truth and their tests: kept as written, since the generator's
// sequence for a seed changes whenever the generator does.
//
// - kept_10421755049_t124, _t295: an externally tagged enum's variant names, refused in a
//   value handed whole, were taken for an internally tagged enum's tag.
// - kept_10421755049_t212: a field came after its own alias in the names serde lists, and
//   was named by the alias.

pub mod kept_10421755049_t124 {
    #![allow(clippy::all, non_camel_case_types, dead_code, unused_imports)]
    use super::ser_ignored;
    use hardpack_check_proof::{Planted, RefusedVariant, Truth};
    use serde::{Deserialize, Serialize};
    #[allow(non_snake_case)]
    fn T124K2_with<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        let s = String::deserialize(d)?;
        if s == "5defdf6b80138be0" {
            Ok(s)
        } else {
            Err(serde::de::Error::custom("not the secret"))
        }
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T124S0 {
        pub f0: T124E1,
        #[serde(deserialize_with = "T124K2_with")]
        pub f1: String,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T124E1 {
        T124E1V0,
        T124E1V1,
    }
    pub type Root = T124S0;
    pub fn samples() -> Vec<Root> {
        vec![
            T124S0 {
                f0: T124E1::T124E1V0,
                f1: "5defdf6b80138be0".to_string(),
            },
            T124S0 {
                f0: T124E1::T124E1V1,
                f1: "5defdf6b80138be0".to_string(),
            },
        ]
    }
    pub const TRUTH: Truth = Truth {
        index: 124,
        planted: &[Planted {
            hidden_by: None,
            what: "validating",
            names: &["T124S0.f1"],
            region: &[
                "",
                "T124S0.f0",
                "T124E1::T124E1V0",
                "T124E1::T124E1V1",
                "T124S0.f1",
            ],
        }],
        holds: &[&[0], &[0]],
        subset: &[1],
        refused_variant: Some(RefusedVariant {
            name: "T124E1V1",
            key: "T124E1::T124E1V1",
            region: &["T124E1::T124E1V1"],
        }),
    };
}
#[test]
fn kept_10421755049_t124_a_no_samples() {
    no_samples::<kept_10421755049_t124::Root>(10421755049, &kept_10421755049_t124::TRUTH)
}
#[test]
fn kept_10421755049_t124_b_every_sample() {
    every_sample::<kept_10421755049_t124::Root>(
        10421755049,
        &kept_10421755049_t124::TRUTH,
        kept_10421755049_t124::samples(),
    )
}
#[test]
fn kept_10421755049_t124_c_some_samples() {
    some_samples::<kept_10421755049_t124::Root>(
        10421755049,
        &kept_10421755049_t124::TRUTH,
        kept_10421755049_t124::samples(),
    )
}
#[test]
fn kept_10421755049_t124_d_refused_variant() {
    refused_variant::<kept_10421755049_t124::Root>(
        10421755049,
        &kept_10421755049_t124::TRUTH,
        kept_10421755049_t124::samples(),
    )
}
pub mod kept_10421755049_t295 {
    #![allow(clippy::all, non_camel_case_types, dead_code, unused_imports)]
    use super::ser_ignored;
    use hardpack_check_proof::{Planted, RefusedVariant, Truth};
    use serde::{Deserialize, Serialize};
    #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
    pub struct T295K4(pub String);
    impl<'de> Deserialize<'de> for T295K4 {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let s = String::deserialize(d)?;
            if s == "11a1032128876807" {
                Ok(T295K4(s))
            } else {
                Err(serde::de::Error::custom("not the secret"))
            }
        }
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T295E0 {
        T295E0V0,
        T295E0V1 {
            f0: T295S1,
            #[serde(serialize_with = "ser_ignored")]
            f1: serde::de::IgnoredAny,
        },
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    #[serde(rename = "T295S1_renamed")]
    pub struct T295S1 {
        pub f0: T295E2,
        #[serde(rename = "r_f1")]
        pub f1: bool,
        pub f2: (T295E3, Vec<u32>),
        pub f3: T295K4,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T295E2 {
        T295E2V0,
        T295E2V1,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    #[serde(tag = "t")]
    pub enum T295E3 {
        T295E3V0,
        T295E3V1 { f0: bool, f1: u32 },
        T295E3V2 { f0: f64 },
        T295E3V3 { f0: String },
    }
    pub type Root = T295E0;
    pub fn samples() -> Vec<Root> {
        vec![
            T295E0::T295E0V0,
            T295E0::T295E0V1 {
                f0: T295S1 {
                    f0: T295E2::T295E2V0,
                    f1: true,
                    f2: (T295E3::T295E3V0, vec![70_000u32]),
                    f3: T295K4("11a1032128876807".to_string()),
                },
                f1: serde::de::IgnoredAny,
            },
            T295E0::T295E0V1 {
                f0: T295S1 {
                    f0: T295E2::T295E2V1,
                    f1: true,
                    f2: (T295E3::T295E3V0, vec![70_000u32]),
                    f3: T295K4("11a1032128876807".to_string()),
                },
                f1: serde::de::IgnoredAny,
            },
            T295E0::T295E0V1 {
                f0: T295S1 {
                    f0: T295E2::T295E2V0,
                    f1: true,
                    f2: (
                        T295E3::T295E3V1 {
                            f0: true,
                            f1: 70_000u32,
                        },
                        vec![70_000u32],
                    ),
                    f3: T295K4("11a1032128876807".to_string()),
                },
                f1: serde::de::IgnoredAny,
            },
            T295E0::T295E0V1 {
                f0: T295S1 {
                    f0: T295E2::T295E2V0,
                    f1: true,
                    f2: (T295E3::T295E3V2 { f0: 1.5f64 }, vec![70_000u32]),
                    f3: T295K4("11a1032128876807".to_string()),
                },
                f1: serde::de::IgnoredAny,
            },
            T295E0::T295E0V1 {
                f0: T295S1 {
                    f0: T295E2::T295E2V0,
                    f1: true,
                    f2: (
                        T295E3::T295E3V3 {
                            f0: "text".to_string(),
                        },
                        vec![70_000u32],
                    ),
                    f3: T295K4("11a1032128876807".to_string()),
                },
                f1: serde::de::IgnoredAny,
            },
        ]
    }
    pub const TRUTH: Truth = Truth {
        index: 295,
        planted: &[
            Planted {
                hidden_by: None,
                what: "validating",
                names: &["T295E0::T295E0V1", "T295S1_renamed.f3"],
                region: &[
                    "T295E0::T295E0V1",
                    "T295E0::T295E0V1.f0",
                    "T295S1_renamed.f0",
                    "T295E2::T295E2V0",
                    "T295E2::T295E2V1",
                    "T295S1_renamed.r_f1",
                    "T295S1_renamed.f2",
                    "T295S1_renamed.f2.0",
                    "T295S1_renamed.f2.0::T295E3V0",
                    "T295S1_renamed.f2.0::T295E3V1",
                    "T295S1_renamed.f2.0::T295E3V2",
                    "T295S1_renamed.f2.0::T295E3V3",
                    "T295S1_renamed.f2.1",
                    "T295S1_renamed.f2.1[]",
                    "T295S1_renamed.f3",
                    "T295E0::T295E0V1.f1",
                ],
            },
            Planted {
                hidden_by: Some(0),
                what: "opaque",
                names: &["T295E0::T295E0V1", "T295E0::T295E0V1.f1"],
                region: &[
                    "T295E0::T295E0V1",
                    "T295E0::T295E0V1.f0",
                    "T295S1_renamed.f0",
                    "T295E2::T295E2V0",
                    "T295E2::T295E2V1",
                    "T295S1_renamed.r_f1",
                    "T295S1_renamed.f2",
                    "T295S1_renamed.f2.0",
                    "T295S1_renamed.f2.0::T295E3V0",
                    "T295S1_renamed.f2.0::T295E3V1",
                    "T295S1_renamed.f2.0::T295E3V2",
                    "T295S1_renamed.f2.0::T295E3V3",
                    "T295S1_renamed.f2.1",
                    "T295S1_renamed.f2.1[]",
                    "T295S1_renamed.f3",
                    "T295E0::T295E0V1.f1",
                ],
            },
        ],
        holds: &[&[], &[0, 1], &[0, 1], &[0, 1], &[0, 1], &[0, 1]],
        subset: &[1, 5],
        refused_variant: Some(RefusedVariant {
            name: "T295E0V1",
            key: "T295E0::T295E0V1",
            region: &[
                "T295E0::T295E0V1",
                "T295E0::T295E0V1.f0",
                "T295S1_renamed.f0",
                "T295E2::T295E2V0",
                "T295E2::T295E2V1",
                "T295S1_renamed.r_f1",
                "T295S1_renamed.f2",
                "T295S1_renamed.f2.0",
                "T295S1_renamed.f2.0::T295E3V0",
                "T295S1_renamed.f2.0::T295E3V1",
                "T295S1_renamed.f2.0::T295E3V2",
                "T295S1_renamed.f2.0::T295E3V3",
                "T295S1_renamed.f2.1",
                "T295S1_renamed.f2.1[]",
                "T295S1_renamed.f3",
                "T295E0::T295E0V1.f1",
            ],
        }),
    };
}
#[test]
fn kept_10421755049_t295_a_no_samples() {
    no_samples::<kept_10421755049_t295::Root>(10421755049, &kept_10421755049_t295::TRUTH)
}
#[test]
fn kept_10421755049_t295_b_every_sample() {
    every_sample::<kept_10421755049_t295::Root>(
        10421755049,
        &kept_10421755049_t295::TRUTH,
        kept_10421755049_t295::samples(),
    )
}
#[test]
fn kept_10421755049_t295_c_some_samples() {
    some_samples::<kept_10421755049_t295::Root>(
        10421755049,
        &kept_10421755049_t295::TRUTH,
        kept_10421755049_t295::samples(),
    )
}
#[test]
fn kept_10421755049_t295_d_refused_variant() {
    refused_variant::<kept_10421755049_t295::Root>(
        10421755049,
        &kept_10421755049_t295::TRUTH,
        kept_10421755049_t295::samples(),
    )
}
pub mod kept_10421755049_t212 {
    #![allow(clippy::all, non_camel_case_types, dead_code, unused_imports)]
    use super::ser_ignored;
    use hardpack_check_proof::{Planted, RefusedVariant, Truth};
    use serde::{Deserialize, Serialize};
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T212S0 {
        #[serde(rename = "r_f0", alias = "f0_alias")]
        pub f0: serde_json::Value,
    }
    pub type Root = T212S0;
    pub fn samples() -> Vec<Root> {
        vec![T212S0 {
            f0: serde_json::json!({"k": [1, "v"]}),
        }]
    }
    pub const TRUTH: Truth = Truth {
        index: 212,
        planted: &[Planted {
            hidden_by: None,
            what: "opaque",
            names: &["T212S0.r_f0"],
            region: &["", "T212S0.r_f0"],
        }],
        holds: &[&[0]],
        subset: &[0],
        refused_variant: None,
    };
}
#[test]
fn kept_10421755049_t212_a_no_samples() {
    no_samples::<kept_10421755049_t212::Root>(10421755049, &kept_10421755049_t212::TRUTH)
}
#[test]
fn kept_10421755049_t212_b_every_sample() {
    every_sample::<kept_10421755049_t212::Root>(
        10421755049,
        &kept_10421755049_t212::TRUTH,
        kept_10421755049_t212::samples(),
    )
}
#[test]
fn kept_10421755049_t212_c_some_samples() {
    some_samples::<kept_10421755049_t212::Root>(
        10421755049,
        &kept_10421755049_t212::TRUTH,
        kept_10421755049_t212::samples(),
    )
}
