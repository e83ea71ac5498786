// The generated types of other seeds that once showed a mismatch, as the generator wrote
// them then, with their truth and their tests: kept as written, since the generator's
// sequence for a seed changes whenever the generator does.
//
// - kept_10421755049_t124, _t295: an externally tagged enum's variant names, refused in a
//   value handed whole, were taken for an internally tagged enum's tag.
// - kept_10421755049_t212: a field came after its own alias in the names serde lists, and
//   was named by the alias.
// - kept_16373518528864274451_t146: an untagged enum as the value of a map whose key
//   validates, inside a variant behind another validating key: the generator said only the
//   outer key hid it, and expected it named when that key was covered.
// - kept_1795953473_t061: a struct with an alias, met only inside a variant held in a
//   sequence of a struct with an alias of its own: asking the outer struct's names left the
//   sequence empty for the runs after, so the inner struct's names were never asked, and a
//   sample's field was named by the alias listed at its position.
// - kept_10035860226912055833_t049, _t104: a struct with an alias (and a rename) inside a type
//   whose every run is refused: the searches the failed trace left handed the root a map
//   without its first field in the runs that ask a struct its names, so none reached it, and
//   its fields were named by the names serde lists, in position (an alias for the next field).
// - kept_18006458626223535503_t027: an untagged enum with a catch-all, inside a variant no
//   sample of the subset holds: the samples' values handed to its search (each taken by the
//   catch-all) spent the tries before the plain value of every kind, so the place was not
//   seen to take everything, and was said built.
// - kept_1796645413966380709_t042: a struct with an alias, whose first two fields are
//   internally tagged enums, inside a tuple variant: the questions that learn its names read
//   its fields at keys outside the struct, where no search stood, so each field was handed a
//   nil, which the enums refused; the struct was named by the names serde lists, in position.
// - kept_3763505922_t248: a struct with an alias inside `Option<Option<_>>` of a type whose
//   every run is refused: the failed trace left the options handing `None`, so the runs
//   that ask the struct its names never met it, and its fields were named by the names serde
//   lists, in position (the alias for the next field).

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
            hidden_by: &[],
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
                hidden_by: &[],
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
                hidden_by: &[0],
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
            hidden_by: &[],
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
pub mod kept_16373518528864274451_t146 {
    #![allow(clippy::all, non_camel_case_types, dead_code, unused_imports)]
    use super::ser_ignored;
    use hardpack_check_proof::{Planted, RefusedVariant, Truth};
    use serde::{Deserialize, Serialize};
    #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
    pub struct T146K1(pub String);
    impl<'de> Deserialize<'de> for T146K1 {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let s = String::deserialize(d)?;
            if s == "92e6c965b95a0964" {
                Ok(T146K1(s))
            } else {
                Err(serde::de::Error::custom("not the secret"))
            }
        }
    }
    #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
    pub struct T146K9(pub String);
    impl<'de> Deserialize<'de> for T146K9 {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let s = String::deserialize(d)?;
            if s == "dff615c6442af8af" {
                Ok(T146K9(s))
            } else {
                Err(serde::de::Error::custom("not the secret"))
            }
        }
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T146E0 {
        T146E0V0,
        T146E0V1(std::collections::BTreeMap<T146K1, T146E2>, f64),
        T146E0V2(f64),
        T146E0V3,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T146E2 {
        T146E2V0,
        T146E2V1 { f0: bool, f1: bool },
        T146E2V2(T146E3, T146E4),
        T146E2V3((T146E7, T146E8, u8)),
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T146E3 {
        T146E3V0,
        T146E3V1,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    #[serde(tag = "t")]
    pub enum T146E4 {
        T146E4V0,
        T146E4V1 {
            f0: serde_json::Value,
            #[serde(rename = "r_f1")]
            f1: f64,
            #[serde(rename = "r_f2")]
            f2: u8,
        },
        T146E4V2 {
            f0: serde_json::Value,
            f1: u32,
            #[serde(rename = "r_f2")]
            f2: i64,
        },
        T146E4V3,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    #[serde(tag = "t")]
    pub enum T146E7 {
        T146E7V0,
        T146E7V1 { f0: u8 },
        T146E7V2,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T146E8 {
        T146E8V0,
        T146E8V1,
        T146E8V2,
        T146E8V3(f64, std::collections::BTreeMap<T146K9, T146E10>),
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    #[serde(untagged)]
    pub enum T146E10 {
        T146E10V0(bool),
        T146E10V1(u32, u32),
        T146E10V2,
        T146E10Other(serde_json::Value),
    }
    pub type Root = T146E0;
    pub fn samples() -> Vec<Root> {
        vec![
            T146E0::T146E0V0,
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V0,
                )]),
                1.5f64,
            ),
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V1 { f0: true, f1: true },
                )]),
                1.5f64,
            ),
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V2(T146E3::T146E3V0, T146E4::T146E4V0),
                )]),
                1.5f64,
            ),
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V2(T146E3::T146E3V1, T146E4::T146E4V0),
                )]),
                1.5f64,
            ),
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V2(
                        T146E3::T146E3V0,
                        T146E4::T146E4V1 {
                            f0: serde_json::json!({"k": [1, "v"]}),
                            f1: 1.5f64,
                            f2: 7u8,
                        },
                    ),
                )]),
                1.5f64,
            ),
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V2(
                        T146E3::T146E3V0,
                        T146E4::T146E4V2 {
                            f0: serde_json::json!({"k": [1, "v"]}),
                            f1: 70_000u32,
                            f2: -5i64,
                        },
                    ),
                )]),
                1.5f64,
            ),
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V2(T146E3::T146E3V0, T146E4::T146E4V3),
                )]),
                1.5f64,
            ),
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V3((T146E7::T146E7V0, T146E8::T146E8V0, 7u8)),
                )]),
                1.5f64,
            ),
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V3((T146E7::T146E7V1 { f0: 7u8 }, T146E8::T146E8V0, 7u8)),
                )]),
                1.5f64,
            ),
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V3((T146E7::T146E7V2, T146E8::T146E8V0, 7u8)),
                )]),
                1.5f64,
            ),
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V3((T146E7::T146E7V0, T146E8::T146E8V1, 7u8)),
                )]),
                1.5f64,
            ),
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V3((T146E7::T146E7V0, T146E8::T146E8V2, 7u8)),
                )]),
                1.5f64,
            ),
            T146E0::T146E0V1(
                std::collections::BTreeMap::from([(
                    T146K1("92e6c965b95a0964".to_string()),
                    T146E2::T146E2V3((
                        T146E7::T146E7V0,
                        T146E8::T146E8V3(
                            1.5f64,
                            std::collections::BTreeMap::from([(
                                T146K9("dff615c6442af8af".to_string()),
                                T146E10::T146E10V0(true),
                            )]),
                        ),
                        7u8,
                    )),
                )]),
                1.5f64,
            ),
            T146E0::T146E0V2(1.5f64),
            T146E0::T146E0V3,
        ]
    }
    pub const TRUTH: Truth = Truth {
        index: 146,
        planted: &[
            Planted {
                hidden_by: &[],
                what: "validating",
                names: &["T146E0::T146E0V1", "T146E0::T146E0V1.0{key}"],
                region: &[
                    "T146E0::T146E0V1.0{key}",
                    "T146E0::T146E0V1.0{key}",
                    "T146E0::T146E0V1.0{}",
                    "T146E2::T146E2V0",
                    "T146E2::T146E2V1",
                    "T146E2::T146E2V1.f0",
                    "T146E2::T146E2V1.f1",
                    "T146E2::T146E2V2",
                    "T146E2::T146E2V2.0",
                    "T146E3::T146E3V0",
                    "T146E3::T146E3V1",
                    "T146E2::T146E2V2.1",
                    "T146E2::T146E2V2.1::T146E4V0",
                    "T146E2::T146E2V2.1::T146E4V1",
                    "T146E2::T146E2V2.1::T146E4V2",
                    "T146E2::T146E2V2.1::T146E4V3",
                    "T146E2::T146E2V3",
                    "T146E2::T146E2V3",
                    "T146E2::T146E2V3.0",
                    "T146E2::T146E2V3.0::T146E7V0",
                    "T146E2::T146E2V3.0::T146E7V1",
                    "T146E2::T146E2V3.0::T146E7V2",
                    "T146E2::T146E2V3.1",
                    "T146E8::T146E8V0",
                    "T146E8::T146E8V1",
                    "T146E8::T146E8V2",
                    "T146E8::T146E8V3",
                    "T146E8::T146E8V3.0",
                    "T146E8::T146E8V3.1",
                    "T146E8::T146E8V3.1{key}",
                    "T146E8::T146E8V3.1{key}",
                    "T146E8::T146E8V3.1{}",
                    "T146E2::T146E2V3.2",
                ],
            },
            Planted {
                hidden_by: &[0],
                what: "validating",
                names: &[
                    "T146E0::T146E0V1",
                    "T146E2::T146E2V3",
                    "T146E8::T146E8V3",
                    "T146E8::T146E8V3.1{key}",
                ],
                region: &[
                    "T146E8::T146E8V3.1{key}",
                    "T146E8::T146E8V3.1{key}",
                    "T146E8::T146E8V3.1{}",
                ],
            },
            Planted {
                hidden_by: &[0, 1],
                what: "untagged",
                names: &[
                    "T146E0::T146E0V1",
                    "T146E2::T146E2V3",
                    "T146E8::T146E8V3",
                    "T146E8::T146E8V3.1{}",
                ],
                region: &[
                    "T146E8::T146E8V3.1{key}",
                    "T146E8::T146E8V3.1{key}",
                    "T146E8::T146E8V3.1{}",
                ],
            },
        ],
        holds: &[
            &[],
            &[0],
            &[0],
            &[0],
            &[0],
            &[0],
            &[0],
            &[0],
            &[0],
            &[0],
            &[0],
            &[0],
            &[0],
            &[0, 1, 2],
            &[],
            &[],
        ],
        subset: &[0, 1, 3, 5, 6, 9, 10, 14, 15],
        refused_variant: Some(RefusedVariant {
            name: "T146E0V2",
            key: "T146E0::T146E0V2",
            region: &["T146E0::T146E0V2", "T146E0::T146E0V2"],
        }),
    };
}
#[test]
fn kept_16373518528864274451_t146_a_no_samples() {
    no_samples::<kept_16373518528864274451_t146::Root>(
        16373518528864274451,
        &kept_16373518528864274451_t146::TRUTH,
    )
}
#[test]
fn kept_16373518528864274451_t146_b_every_sample() {
    every_sample::<kept_16373518528864274451_t146::Root>(
        16373518528864274451,
        &kept_16373518528864274451_t146::TRUTH,
        kept_16373518528864274451_t146::samples(),
    )
}
#[test]
fn kept_16373518528864274451_t146_c_some_samples() {
    some_samples::<kept_16373518528864274451_t146::Root>(
        16373518528864274451,
        &kept_16373518528864274451_t146::TRUTH,
        kept_16373518528864274451_t146::samples(),
    )
}
#[test]
fn kept_16373518528864274451_t146_d_refused_variant() {
    refused_variant::<kept_16373518528864274451_t146::Root>(
        16373518528864274451,
        &kept_16373518528864274451_t146::TRUTH,
        kept_16373518528864274451_t146::samples(),
    )
}
pub mod kept_1795953473_t061 {
    #![allow(clippy::all, non_camel_case_types, dead_code, unused_imports)]
    use super::ser_ignored;
    use hardpack_check_proof::{Planted, RefusedVariant, Truth};
    use serde::{Deserialize, Serialize};
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T61S0 {
        #[serde(alias = "f0_alias")]
        pub f0: Vec<T61E1>,
        pub f1: i64,
        pub f2: i64,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T61E1 {
        T61E1V0,
        T61E1V1(u32, T61S2),
        T61E1V2,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T61S2 {
        pub f0: bool,
        #[serde(alias = "f1_alias")]
        pub f1: Vec<[i64; 2]>,
        pub f2: u8,
    }
    pub type Root = T61S0;
    pub fn samples() -> Vec<Root> {
        vec![
            T61S0 {
                f0: vec![T61E1::T61E1V0],
                f1: -5i64,
                f2: -5i64,
            },
            T61S0 {
                f0: vec![T61E1::T61E1V1(
                    70_000u32,
                    T61S2 {
                        f0: true,
                        f1: vec![[-5i64, -5i64]],
                        f2: 7u8,
                    },
                )],
                f1: -5i64,
                f2: -5i64,
            },
            T61S0 {
                f0: vec![T61E1::T61E1V2],
                f1: -5i64,
                f2: -5i64,
            },
        ]
    }
    pub const TRUTH: Truth = Truth {
        index: 61,
        planted: &[],
        holds: &[&[], &[], &[]],
        subset: &[1, 2],
        refused_variant: Some(RefusedVariant {
            name: "T61E1V1",
            key: "T61E1::T61E1V1",
            region: &[
                "T61E1::T61E1V1",
                "T61E1::T61E1V1.0",
                "T61E1::T61E1V1.1",
                "T61S2.f0",
                "T61S2.f1",
                "T61S2.f1[]",
                "T61S2.f1[].0",
                "T61S2.f1[].1",
                "T61S2.f2",
            ],
        }),
    };
}
#[test]
fn kept_1795953473_t061_a_no_samples() {
    no_samples::<kept_1795953473_t061::Root>(1795953473, &kept_1795953473_t061::TRUTH)
}
#[test]
fn kept_1795953473_t061_b_every_sample() {
    every_sample::<kept_1795953473_t061::Root>(
        1795953473,
        &kept_1795953473_t061::TRUTH,
        kept_1795953473_t061::samples(),
    )
}
#[test]
fn kept_1795953473_t061_c_some_samples() {
    some_samples::<kept_1795953473_t061::Root>(
        1795953473,
        &kept_1795953473_t061::TRUTH,
        kept_1795953473_t061::samples(),
    )
}
#[test]
fn kept_1795953473_t061_d_refused_variant() {
    refused_variant::<kept_1795953473_t061::Root>(
        1795953473,
        &kept_1795953473_t061::TRUTH,
        kept_1795953473_t061::samples(),
    )
}
pub mod kept_10035860226912055833_t049 {
    #![allow(clippy::all, non_camel_case_types, dead_code, unused_imports)]
    use super::ser_ignored;
    use hardpack_check_proof::{Planted, RefusedVariant, Truth};
    use serde::{Deserialize, Serialize};
    #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
    pub struct T49K5(pub String);
    impl<'de> Deserialize<'de> for T49K5 {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let s = String::deserialize(d)?;
            if s == "a507e34a96fa5a4d" {
                Ok(T49K5(s))
            } else {
                Err(serde::de::Error::custom("not the secret"))
            }
        }
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T49S0 {
        pub f0: T49N1,
        pub f1: T49S2,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T49N1(pub Vec<T49S0>);
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T49S2 {
        pub f0: T49E3,
        #[serde(alias = "f1_alias")]
        pub f1: String,
        pub f2: T49G6<Vec<serde_json::Value>, Box<T49K5>>,
        #[serde(rename = "r_f3")]
        pub f3: std::collections::BTreeMap<String, bool>,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    #[serde(untagged)]
    pub enum T49E3 {
        T49E3V0(bool),
        T49E3V1(i64),
        T49E3V2,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T49G6<A, B> {
        pub a: A,
        pub b: B,
        pub n: u8,
    }
    pub type Root = T49S0;
    pub fn samples() -> Vec<Root> {
        vec![T49S0 {
            f0: T49N1(Vec::new()),
            f1: T49S2 {
                f0: T49E3::T49E3V0(true),
                f1: "text".to_string(),
                f2: T49G6 {
                    a: vec![serde_json::json!({"k": [1, "v"]})],
                    b: Box::new(T49K5("a507e34a96fa5a4d".to_string())),
                    n: 3,
                },
                f3: std::collections::BTreeMap::from([("key".to_string(), true)]),
            },
        }]
    }
    pub const TRUTH: Truth = Truth {
        index: 49,
        planted: &[
            Planted {
                hidden_by: &[],
                what: "untagged",
                names: &["T49S2.f0"],
                region: &[
                    "",
                    "T49S0.f0",
                    "T49N1.0",
                    "T49N1.0[]",
                    "T49S0.f1",
                    "T49S2.f0",
                    "T49S2.f1",
                    "T49S2.f2",
                    "T49G6.a",
                    "T49G6.a[]",
                    "T49G6.b",
                    "T49G6.b",
                    "T49G6.n",
                    "T49S2.r_f3",
                    "T49S2.r_f3{key}",
                    "T49S2.r_f3{}",
                ],
            },
            Planted {
                hidden_by: &[],
                what: "opaque",
                names: &["T49G6.a[]"],
                region: &["T49G6.a[]"],
            },
            Planted {
                hidden_by: &[],
                what: "validating",
                names: &["T49G6.b"],
                region: &[
                    "",
                    "T49S0.f0",
                    "T49N1.0",
                    "T49N1.0[]",
                    "T49S0.f1",
                    "T49S2.f0",
                    "T49S2.f1",
                    "T49S2.f2",
                    "T49G6.a",
                    "T49G6.a[]",
                    "T49G6.b",
                    "T49G6.b",
                    "T49G6.n",
                    "T49S2.r_f3",
                    "T49S2.r_f3{key}",
                    "T49S2.r_f3{}",
                ],
            },
        ],
        holds: &[&[0, 1, 2]],
        subset: &[0],
        refused_variant: None,
    };
}
#[test]
fn kept_10035860226912055833_t049_a_no_samples() {
    no_samples::<kept_10035860226912055833_t049::Root>(
        10035860226912055833,
        &kept_10035860226912055833_t049::TRUTH,
    )
}
#[test]
fn kept_10035860226912055833_t049_b_every_sample() {
    every_sample::<kept_10035860226912055833_t049::Root>(
        10035860226912055833,
        &kept_10035860226912055833_t049::TRUTH,
        kept_10035860226912055833_t049::samples(),
    )
}
#[test]
fn kept_10035860226912055833_t049_c_some_samples() {
    some_samples::<kept_10035860226912055833_t049::Root>(
        10035860226912055833,
        &kept_10035860226912055833_t049::TRUTH,
        kept_10035860226912055833_t049::samples(),
    )
}
pub mod kept_10035860226912055833_t104 {
    #![allow(clippy::all, non_camel_case_types, dead_code, unused_imports)]
    use super::ser_ignored;
    use hardpack_check_proof::{Planted, RefusedVariant, Truth};
    use serde::{Deserialize, Serialize};
    #[allow(non_snake_case)]
    fn T104K3_with<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        let s = String::deserialize(d)?;
        if s == "739d40ad372a6b16" {
            Ok(s)
        } else {
            Err(serde::de::Error::custom("not the secret"))
        }
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T104S0 {
        pub f0: std::collections::BTreeMap<String, T104S1>,
        #[serde(deserialize_with = "T104K3_with")]
        pub f1: String,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T104S1 {
        pub f0: bool,
        #[serde(rename = "r_f1", alias = "a_f1")]
        pub f1: T104S2,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T104S2 {
        #[serde(rename = "r_f0")]
        pub f0: u8,
    }
    pub type Root = T104S0;
    pub fn samples() -> Vec<Root> {
        vec![T104S0 {
            f0: std::collections::BTreeMap::from([(
                "key".to_string(),
                T104S1 {
                    f0: true,
                    f1: T104S2 { f0: 7u8 },
                },
            )]),
            f1: "739d40ad372a6b16".to_string(),
        }]
    }
    pub const TRUTH: Truth = Truth {
        index: 104,
        planted: &[Planted {
            hidden_by: &[],
            what: "validating",
            names: &["T104S0.f1"],
            region: &[
                "",
                "T104S0.f0",
                "T104S0.f0{key}",
                "T104S0.f0{}",
                "T104S1.f0",
                "T104S1.r_f1",
                "T104S2.r_f0",
                "T104S0.f1",
            ],
        }],
        holds: &[&[0]],
        subset: &[0],
        refused_variant: None,
    };
}
#[test]
fn kept_10035860226912055833_t104_a_no_samples() {
    no_samples::<kept_10035860226912055833_t104::Root>(
        10035860226912055833,
        &kept_10035860226912055833_t104::TRUTH,
    )
}
#[test]
fn kept_10035860226912055833_t104_b_every_sample() {
    every_sample::<kept_10035860226912055833_t104::Root>(
        10035860226912055833,
        &kept_10035860226912055833_t104::TRUTH,
        kept_10035860226912055833_t104::samples(),
    )
}
#[test]
fn kept_10035860226912055833_t104_c_some_samples() {
    some_samples::<kept_10035860226912055833_t104::Root>(
        10035860226912055833,
        &kept_10035860226912055833_t104::TRUTH,
        kept_10035860226912055833_t104::samples(),
    )
}
pub mod kept_18006458626223535503_t027 {
    #![allow(clippy::all, non_camel_case_types, dead_code, unused_imports)]
    use super::ser_ignored;
    use hardpack_check_proof::{Planted, RefusedVariant, Truth};
    use serde::{Deserialize, Serialize};
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T27E0 {
        T27E0V0,
        T27E0V1(T27G3<f64, T27E1>),
        T27E0V2(T27E4, u32),
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    #[serde(untagged)]
    pub enum T27E1 {
        T27E1V0(bool),
        T27E1V1 { f0: u32, f1: bool, f2: String },
        T27E1Other(serde_json::Value),
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T27G3<A, B> {
        pub a: A,
        pub b: B,
        pub n: u8,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T27E4 {
        T27E4V0,
        T27E4V1(T27G9<T27S5, String>, i64),
        T27E4V2(f64, f64),
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T27S5 {
        pub f0: T27E6,
        #[serde(default)]
        pub f1: String,
        #[serde(default)]
        pub f2: u8,
        pub f3: i64,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T27E6 {
        T27E6V0,
        T27E6V1 { f0: T27E7, f1: String },
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T27E7 {
        T27E7V0,
        T27E7V1 {
            f0: T27E8,
            f1: u32,
            #[serde(rename = "r_f2")]
            f2: u8,
            f3: bool,
        },
        T27E7V2 {
            f0: bool,
            #[serde(rename = "r_f1")]
            f1: String,
        },
        T27E7V3(i64),
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T27E8 {
        T27E8V0,
        T27E8V1(String),
        T27E8V2 { f0: Vec<T27E8>, f1: i64 },
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T27G9<A, B> {
        pub a: A,
        pub b: B,
        pub n: u8,
    }
    pub type Root = T27E0;
    pub fn samples() -> Vec<Root> {
        vec![
            T27E0::T27E0V0,
            T27E0::T27E0V1(T27G3 {
                a: 1.5f64,
                b: T27E1::T27E1V0(true),
                n: 3,
            }),
            T27E0::T27E0V2(T27E4::T27E4V0, 70_000u32),
            T27E0::T27E0V2(
                T27E4::T27E4V1(
                    T27G9 {
                        a: T27S5 {
                            f0: T27E6::T27E6V0,
                            f1: "text".to_string(),
                            f2: 7u8,
                            f3: -5i64,
                        },
                        b: "text".to_string(),
                        n: 3,
                    },
                    -5i64,
                ),
                70_000u32,
            ),
            T27E0::T27E0V2(
                T27E4::T27E4V1(
                    T27G9 {
                        a: T27S5 {
                            f0: T27E6::T27E6V1 {
                                f0: T27E7::T27E7V0,
                                f1: "text".to_string(),
                            },
                            f1: "text".to_string(),
                            f2: 7u8,
                            f3: -5i64,
                        },
                        b: "text".to_string(),
                        n: 3,
                    },
                    -5i64,
                ),
                70_000u32,
            ),
            T27E0::T27E0V2(
                T27E4::T27E4V1(
                    T27G9 {
                        a: T27S5 {
                            f0: T27E6::T27E6V1 {
                                f0: T27E7::T27E7V1 {
                                    f0: T27E8::T27E8V0,
                                    f1: 70_000u32,
                                    f2: 7u8,
                                    f3: true,
                                },
                                f1: "text".to_string(),
                            },
                            f1: "text".to_string(),
                            f2: 7u8,
                            f3: -5i64,
                        },
                        b: "text".to_string(),
                        n: 3,
                    },
                    -5i64,
                ),
                70_000u32,
            ),
            T27E0::T27E0V2(
                T27E4::T27E4V1(
                    T27G9 {
                        a: T27S5 {
                            f0: T27E6::T27E6V1 {
                                f0: T27E7::T27E7V1 {
                                    f0: T27E8::T27E8V1("text".to_string()),
                                    f1: 70_000u32,
                                    f2: 7u8,
                                    f3: true,
                                },
                                f1: "text".to_string(),
                            },
                            f1: "text".to_string(),
                            f2: 7u8,
                            f3: -5i64,
                        },
                        b: "text".to_string(),
                        n: 3,
                    },
                    -5i64,
                ),
                70_000u32,
            ),
            T27E0::T27E0V2(
                T27E4::T27E4V1(
                    T27G9 {
                        a: T27S5 {
                            f0: T27E6::T27E6V1 {
                                f0: T27E7::T27E7V1 {
                                    f0: T27E8::T27E8V2 {
                                        f0: Vec::new(),
                                        f1: -5i64,
                                    },
                                    f1: 70_000u32,
                                    f2: 7u8,
                                    f3: true,
                                },
                                f1: "text".to_string(),
                            },
                            f1: "text".to_string(),
                            f2: 7u8,
                            f3: -5i64,
                        },
                        b: "text".to_string(),
                        n: 3,
                    },
                    -5i64,
                ),
                70_000u32,
            ),
            T27E0::T27E0V2(
                T27E4::T27E4V1(
                    T27G9 {
                        a: T27S5 {
                            f0: T27E6::T27E6V1 {
                                f0: T27E7::T27E7V2 {
                                    f0: true,
                                    f1: "text".to_string(),
                                },
                                f1: "text".to_string(),
                            },
                            f1: "text".to_string(),
                            f2: 7u8,
                            f3: -5i64,
                        },
                        b: "text".to_string(),
                        n: 3,
                    },
                    -5i64,
                ),
                70_000u32,
            ),
            T27E0::T27E0V2(
                T27E4::T27E4V1(
                    T27G9 {
                        a: T27S5 {
                            f0: T27E6::T27E6V1 {
                                f0: T27E7::T27E7V3(-5i64),
                                f1: "text".to_string(),
                            },
                            f1: "text".to_string(),
                            f2: 7u8,
                            f3: -5i64,
                        },
                        b: "text".to_string(),
                        n: 3,
                    },
                    -5i64,
                ),
                70_000u32,
            ),
            T27E0::T27E0V2(T27E4::T27E4V2(1.5f64, 1.5f64), 70_000u32),
        ]
    }
    pub const TRUTH: Truth = Truth {
        index: 27,
        planted: &[Planted {
            hidden_by: &[],
            what: "untagged",
            names: &["T27E0::T27E0V1", "T27G3.b"],
            region: &[
                "T27E0::T27E0V1",
                "T27E0::T27E0V1",
                "T27G3.a",
                "T27G3.b",
                "T27G3.n",
            ],
        }],
        holds: &[&[], &[0], &[], &[], &[], &[], &[], &[], &[], &[], &[]],
        subset: &[0, 3, 6, 7, 8, 9],
        refused_variant: Some(RefusedVariant {
            name: "T27E8V1",
            key: "T27E8::T27E8V1",
            region: &["T27E8::T27E8V1", "T27E8::T27E8V1"],
        }),
    };
}
#[test]
fn kept_18006458626223535503_t027_a_no_samples() {
    no_samples::<kept_18006458626223535503_t027::Root>(
        18006458626223535503,
        &kept_18006458626223535503_t027::TRUTH,
    )
}
#[test]
fn kept_18006458626223535503_t027_b_every_sample() {
    every_sample::<kept_18006458626223535503_t027::Root>(
        18006458626223535503,
        &kept_18006458626223535503_t027::TRUTH,
        kept_18006458626223535503_t027::samples(),
    )
}
#[test]
fn kept_18006458626223535503_t027_c_some_samples() {
    some_samples::<kept_18006458626223535503_t027::Root>(
        18006458626223535503,
        &kept_18006458626223535503_t027::TRUTH,
        kept_18006458626223535503_t027::samples(),
    )
}
#[test]
fn kept_18006458626223535503_t027_d_refused_variant() {
    refused_variant::<kept_18006458626223535503_t027::Root>(
        18006458626223535503,
        &kept_18006458626223535503_t027::TRUTH,
        kept_18006458626223535503_t027::samples(),
    )
}

pub mod kept_1796645413966380709_t042 {
    #![allow(clippy::all, non_camel_case_types, dead_code, unused_imports)]
    use super::ser_ignored;
    use hardpack_check_proof::{Planted, RefusedVariant, Truth};
    use serde::{Deserialize, Serialize};
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub enum T42E0 {
        T42E0V0,
        T42E0V1(T42S1, u32),
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    #[serde(rename = "T42S1_renamed")]
    pub struct T42S1 {
        pub f0: T42E2,
        #[serde(alias = "a_f1")]
        pub f1: T42E3,
        #[serde(default)]
        pub f2: Option<Vec<T42S4>>,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    #[serde(tag = "t")]
    pub enum T42E2 {
        T42E2V0,
        T42E2V1 { f0: bool },
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    #[serde(tag = "t")]
    pub enum T42E3 {
        T42E3V0,
        T42E3V1 { f0: String, f1: bool },
        T42E3V2 { f0: bool, f1: u8 },
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T42S4 {
        pub f0: T42S5,
        pub f1: String,
    }
    #[derive(Debug, Serialize, Deserialize)]
    #[allow(dead_code)]
    pub struct T42S5 {
        pub f0: Option<String>,
        pub f1: f64,
        pub f2: bool,
        #[serde(rename = "r_f3", alias = "a_f3", default)]
        pub f3: u32,
    }
    pub type Root = T42E0;
    pub fn samples() -> Vec<Root> {
        vec![
            T42E0::T42E0V0,
            T42E0::T42E0V1(
                T42S1 {
                    f0: T42E2::T42E2V0,
                    f1: T42E3::T42E3V0,
                    f2: Some(vec![T42S4 {
                        f0: T42S5 {
                            f0: Some("text".to_string()),
                            f1: 1.5f64,
                            f2: true,
                            f3: 70_000u32,
                        },
                        f1: "text".to_string(),
                    }]),
                },
                70_000u32,
            ),
            T42E0::T42E0V1(
                T42S1 {
                    f0: T42E2::T42E2V1 { f0: true },
                    f1: T42E3::T42E3V0,
                    f2: Some(vec![T42S4 {
                        f0: T42S5 {
                            f0: Some("text".to_string()),
                            f1: 1.5f64,
                            f2: true,
                            f3: 70_000u32,
                        },
                        f1: "text".to_string(),
                    }]),
                },
                70_000u32,
            ),
            T42E0::T42E0V1(
                T42S1 {
                    f0: T42E2::T42E2V0,
                    f1: T42E3::T42E3V1 {
                        f0: "text".to_string(),
                        f1: true,
                    },
                    f2: Some(vec![T42S4 {
                        f0: T42S5 {
                            f0: Some("text".to_string()),
                            f1: 1.5f64,
                            f2: true,
                            f3: 70_000u32,
                        },
                        f1: "text".to_string(),
                    }]),
                },
                70_000u32,
            ),
            T42E0::T42E0V1(
                T42S1 {
                    f0: T42E2::T42E2V0,
                    f1: T42E3::T42E3V2 { f0: true, f1: 7u8 },
                    f2: Some(vec![T42S4 {
                        f0: T42S5 {
                            f0: Some("text".to_string()),
                            f1: 1.5f64,
                            f2: true,
                            f3: 70_000u32,
                        },
                        f1: "text".to_string(),
                    }]),
                },
                70_000u32,
            ),
        ]
    }
    pub const TRUTH: Truth = Truth {
        index: 42,
        planted: &[],
        holds: &[&[], &[], &[], &[], &[]],
        subset: &[1, 2, 4],
        refused_variant: Some(RefusedVariant {
            name: "T42E0V1",
            key: "T42E0::T42E0V1",
            region: &[
                "T42E0::T42E0V1",
                "T42E0::T42E0V1.0",
                "T42S1_renamed.f0",
                "T42S1_renamed.f0::T42E2V0",
                "T42S1_renamed.f0::T42E2V1",
                "T42S1_renamed.f1",
                "T42S1_renamed.f1::T42E3V0",
                "T42S1_renamed.f1::T42E3V1",
                "T42S1_renamed.f1::T42E3V2",
                "T42S1_renamed.f2",
                "T42S1_renamed.f2?",
                "T42S1_renamed.f2?[]",
                "T42S4.f0",
                "T42S5.f0",
                "T42S5.f0?",
                "T42S5.f1",
                "T42S5.f2",
                "T42S5.r_f3",
                "T42S4.f1",
                "T42E0::T42E0V1.1",
            ],
        }),
    };
}
#[test]
fn kept_1796645413966380709_t042_a_no_samples() {
    no_samples::<kept_1796645413966380709_t042::Root>(
        1796645413966380709,
        &kept_1796645413966380709_t042::TRUTH,
    )
}
#[test]
fn kept_1796645413966380709_t042_b_every_sample() {
    every_sample::<kept_1796645413966380709_t042::Root>(
        1796645413966380709,
        &kept_1796645413966380709_t042::TRUTH,
        kept_1796645413966380709_t042::samples(),
    )
}
#[test]
fn kept_1796645413966380709_t042_c_some_samples() {
    some_samples::<kept_1796645413966380709_t042::Root>(
        1796645413966380709,
        &kept_1796645413966380709_t042::TRUTH,
        kept_1796645413966380709_t042::samples(),
    )
}
#[test]
fn kept_1796645413966380709_t042_d_refused_variant() {
    refused_variant::<kept_1796645413966380709_t042::Root>(
        1796645413966380709,
        &kept_1796645413966380709_t042::TRUTH,
        kept_1796645413966380709_t042::samples(),
    )
}
pub mod kept_3763505922_t248 {
#![allow(clippy::all, non_camel_case_types, dead_code, unused_imports)]
use serde::{Deserialize, Serialize};
use super::ser_ignored;
use hardpack_check_proof::{Planted, RefusedVariant, Truth};
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)] pub struct T248K4(pub String);
impl<'de> Deserialize<'de> for T248K4 { fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> { let s = String::deserialize(d)?; if s == "7389357d63a1edd0" { Ok(T248K4(s)) } else { Err(serde::de::Error::custom("not the secret")) } } }
#[derive(Debug, Serialize, Deserialize)] #[allow(dead_code)] pub struct T248N0(pub Option<Option<T248S1>>);
#[derive(Debug, Serialize, Deserialize)] #[allow(dead_code)] pub struct T248S1 { #[serde(alias = "f0_alias")] pub f0: T248S2, pub f1: String, pub f2: Vec<std::collections::BTreeMap<String, T248E3>>, #[serde(rename = "r_f3")] pub f3: T248K4 }
#[derive(Debug, Serialize, Deserialize)] #[allow(dead_code)] #[serde(rename = "T248S2_renamed")] pub struct T248S2 { #[serde(alias = "a_f0")] pub f0: Option<String>, pub f1: Option<f64> }
#[derive(Debug, Serialize, Deserialize)] #[allow(dead_code)] #[serde(tag = "t")] pub enum T248E3 { T248E3V0, T248E3V1, T248E3V2, T248E3V3 { f0: String, f1: bool, f2: String } }
pub type Root = T248N0;
pub fn samples() -> Vec<Root> { vec![T248N0(Some(Some(T248S1 { f0: T248S2 { f0: Some("text".to_string()), f1: Some(1.5f64) }, f1: "text".to_string(), f2: vec![std::collections::BTreeMap::from([("key".to_string(), T248E3::T248E3V0)])], f3: T248K4("7389357d63a1edd0".to_string()) }))),
T248N0(Some(Some(T248S1 { f0: T248S2 { f0: Some("text".to_string()), f1: Some(1.5f64) }, f1: "text".to_string(), f2: vec![std::collections::BTreeMap::from([("key".to_string(), T248E3::T248E3V1)])], f3: T248K4("7389357d63a1edd0".to_string()) }))),
T248N0(Some(Some(T248S1 { f0: T248S2 { f0: Some("text".to_string()), f1: Some(1.5f64) }, f1: "text".to_string(), f2: vec![std::collections::BTreeMap::from([("key".to_string(), T248E3::T248E3V2)])], f3: T248K4("7389357d63a1edd0".to_string()) }))),
T248N0(Some(Some(T248S1 { f0: T248S2 { f0: Some("text".to_string()), f1: Some(1.5f64) }, f1: "text".to_string(), f2: vec![std::collections::BTreeMap::from([("key".to_string(), T248E3::T248E3V3 { f0: "text".to_string(), f1: true, f2: "text".to_string() })])], f3: T248K4("7389357d63a1edd0".to_string()) })))] }
pub const TRUTH: Truth = Truth { index: 248, planted: &[Planted { hidden_by: &[], what: "validating", names: &["T248S1.r_f3"], region: &["T248N0.0??", "T248S1.f0", "T248S2_renamed.f0", "T248S2_renamed.f0?", "T248S2_renamed.f1", "T248S2_renamed.f1?", "T248S1.f1", "T248S1.f2", "T248S1.f2[]", "T248S1.f2[]{key}", "T248S1.f2[]{}", "T248S1.f2[]{}::T248E3V0", "T248S1.f2[]{}::T248E3V1", "T248S1.f2[]{}::T248E3V2", "T248S1.f2[]{}::T248E3V3", "T248S1.r_f3"] }], holds: &[&[0], &[0], &[0], &[0]], subset: &[1, 2, 3], refused_variant: Some(RefusedVariant { name: "T248E3V1", key: "T248S1.f2[]{}::T248E3V1", region: &["T248S1.f2[]{}::T248E3V1"] }) };
}
#[test]
fn kept_3763505922_t248_a_no_samples() {
    no_samples::<kept_3763505922_t248::Root>(3763505922, &kept_3763505922_t248::TRUTH)
}
#[test]
fn kept_3763505922_t248_b_every_sample() {
    every_sample::<kept_3763505922_t248::Root>(3763505922, &kept_3763505922_t248::TRUTH, kept_3763505922_t248::samples())
}
#[test]
fn kept_3763505922_t248_c_some_samples() {
    some_samples::<kept_3763505922_t248::Root>(3763505922, &kept_3763505922_t248::TRUTH, kept_3763505922_t248::samples())
}
#[test]
fn kept_3763505922_t248_d_refused_variant() {
    refused_variant::<kept_3763505922_t248::Root>(3763505922, &kept_3763505922_t248::TRUTH, kept_3763505922_t248::samples())
}
