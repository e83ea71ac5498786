//! One `--max-*` flag per limit, generated from [`Limit::ALL`] (the codec's one list of
//! limits): a new limit gets its flag, its help and its JSON field without a change here.

use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use hardpack::{Limit, Limits};

use crate::units::{human_bytes, parse_size};

/// The limits given on the command line; the others keep `Limits::default()`.
#[derive(Clone, Debug, Default)]
pub struct LimitFlags {
    set: Vec<(Limit, usize)>,
}

impl LimitFlags {
    /// No limit flag was given.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// `Limits::default()` with every flag given applied.
    pub fn limits(&self) -> Limits {
        self.set
            .iter()
            .fold(Limits::default(), |limits, &(limit, value)| {
                limits.with(limit, value)
            })
    }
}

/// The flag of a limit: `max_array_len` is `--max-array-len`.
pub fn flag_name(limit: Limit) -> String {
    limit.name().replace('_', "-")
}

/// The limit whose field name (`max_depth`) or flag (`--max-depth`, `max-depth`) this is.
pub fn limit_by_name(name: &str) -> Result<Limit, String> {
    let wanted = name.trim_start_matches("--").replace('-', "_");
    Limit::ALL
        .into_iter()
        .find(|l| l.name() == wanted)
        .ok_or_else(|| {
            let names: Vec<&str> = Limit::ALL.iter().map(|l| l.name()).collect();
            format!("unknown limit {name:?}; one of {}", names.join(", "))
        })
}

/// A limit's value as people read it: sizes in KiB/MiB, `max` for unlimited.
pub fn human_limit(limit: Limit, value: usize) -> String {
    match value {
        usize::MAX => "max".to_string(),
        v if limit.counts_bytes() => human_bytes(v).replace(' ', "").replace(".0", ""),
        v => v.to_string(),
    }
}

impl Args for LimitFlags {
    fn augment_args(cmd: Command) -> Command {
        let defaults = Limits::default();
        Limit::ALL.iter().fold(cmd, |cmd, &limit| {
            // clap keeps flag names for the life of the program; there are seven.
            let long: &'static str = Box::leak(flag_name(limit).into_boxed_str());
            let mut measures = limit.measures().to_string();
            if let Some(first) = measures.get_mut(..1) {
                first.make_ascii_uppercase();
            }
            cmd.arg(
                Arg::new(limit.name())
                    .long(long)
                    .value_name(if limit.counts_bytes() { "SIZE" } else { "N" })
                    .value_parser(parse_size)
                    .help(format!(
                        "{measures} allowed [default: {}]",
                        human_limit(limit, defaults.get(limit))
                    )),
            )
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for LimitFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let set = Limit::ALL
            .iter()
            .filter_map(|&l| matches.get_one::<usize>(l.name()).map(|v| (l, *v)))
            .collect();
        Ok(LimitFlags { set })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// The `--max-*` flags that give `limits` to a child `hardpack repro`.
pub fn limit_args(limits: &Limits) -> Vec<String> {
    Limit::ALL
        .iter()
        .flat_map(|l| {
            let value = match limits.get(*l) {
                usize::MAX => "max".to_string(),
                v => v.to_string(),
            };
            [format!("--{}", flag_name(*l)), value]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_flags_find_their_limit() {
        assert_eq!(limit_by_name("max_depth"), Ok(Limit::Depth));
        assert_eq!(limit_by_name("--max-alloc-bytes"), Ok(Limit::AllocBytes));
        assert!(limit_by_name("depth")
            .unwrap_err()
            .contains("one of max_depth"));
    }

    #[test]
    fn every_limit_has_a_flag_that_round_trips() {
        let limits = Limits::unlimited().with(Limit::Depth, 3);
        let cmd = LimitFlags::augment_args(Command::new("t").no_binary_name(true));
        let matches = cmd.try_get_matches_from(limit_args(&limits)).unwrap();
        assert_eq!(
            LimitFlags::from_arg_matches(&matches).unwrap().limits(),
            limits
        );
    }

    #[test]
    fn limits_read_as_people_write_them() {
        assert_eq!(human_limit(Limit::StrLen, 16 << 20), "16MiB");
        assert_eq!(human_limit(Limit::Depth, 128), "128");
        assert_eq!(human_limit(Limit::AllocBytes, usize::MAX), "max");
    }
}
