//! The timestamp extension (ext type -1): 32-, 64- and 96-bit forms.

use crate::error::TimestampError;

/// The extension type MessagePack reserves for timestamps.
pub const TIMESTAMP_EXT_TYPE: i8 = -1;

const MAX_NANOS: u32 = 999_999_999;

/// A point in time: seconds since 1970-01-01T00:00:00Z plus nanoseconds (at most 999,999,999).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp {
    seconds: i64,
    nanoseconds: u32,
}

impl Timestamp {
    /// 1970-01-01T00:00:00Z.
    pub const UNIX_EPOCH: Timestamp = Timestamp {
        seconds: 0,
        nanoseconds: 0,
    };

    /// A timestamp, or `None` when `nanoseconds` is above 999,999,999.
    pub const fn new(seconds: i64, nanoseconds: u32) -> Option<Self> {
        if nanoseconds > MAX_NANOS {
            None
        } else {
            Some(Timestamp {
                seconds,
                nanoseconds,
            })
        }
    }

    /// Seconds since the Unix epoch (negative before it).
    pub const fn seconds(&self) -> i64 {
        self.seconds
    }

    /// Nanoseconds within the second, 0..=999,999,999.
    pub const fn nanoseconds(&self) -> u32 {
        self.nanoseconds
    }

    /// Parses an ext -1 payload: 4, 8 or 12 bytes, nanoseconds at most 999,999,999.
    pub fn from_ext_payload(payload: &[u8]) -> Result<Self, TimestampError> {
        let (seconds, nanoseconds) = if let Ok(b) = <[u8; 4]>::try_from(payload) {
            (i64::from(u32::from_be_bytes(b)), 0)
        } else if let Ok(b) = <[u8; 8]>::try_from(payload) {
            let data = u64::from_be_bytes(b);
            // 30 bits of nanoseconds over 34 bits of seconds: both fit their targets.
            let nanos = u32::try_from(data >> 34).unwrap_or(u32::MAX);
            let secs = i64::try_from(data & 0x3_ffff_ffff).unwrap_or(i64::MAX);
            (secs, nanos)
        } else if let Ok(b) = <[u8; 12]>::try_from(payload) {
            let (nanos, secs) = b.split_at(4);
            let nanos = <[u8; 4]>::try_from(nanos).map_or(u32::MAX, u32::from_be_bytes);
            let secs = <[u8; 8]>::try_from(secs).map_or(0, i64::from_be_bytes);
            (secs, nanos)
        } else {
            return Err(TimestampError::Length(payload.len()));
        };
        Timestamp::new(seconds, nanoseconds).ok_or(TimestampError::Nanoseconds(nanoseconds))
    }

    /// The smallest ext -1 payload for this timestamp, in a fixed buffer with its length.
    pub(crate) fn to_ext_payload(self) -> ([u8; 12], usize) {
        let mut buf = [0u8; 12];
        let (secs, nanos) = (self.seconds, self.nanoseconds);
        let len = match u64::try_from(secs) {
            Ok(s) if s >> 34 == 0 => {
                if let (0, Ok(s32)) = (nanos, u32::try_from(s)) {
                    write_into(&mut buf, &s32.to_be_bytes());
                    4
                } else {
                    write_into(&mut buf, &((u64::from(nanos) << 34) | s).to_be_bytes());
                    8
                }
            }
            _ => {
                write_into(&mut buf, &nanos.to_be_bytes());
                if let Some(tail) = buf.get_mut(4..) {
                    write_into(tail, &secs.to_be_bytes());
                }
                12
            }
        };
        (buf, len)
    }
}

fn write_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = *s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timestamp_gives_back_the_seconds_and_nanoseconds_it_was_made_of() {
        for (seconds, nanoseconds) in [(0, 0), (-1, 999_999_999), (1 << 34, 1), (i64::MIN, 5)] {
            let ts = Timestamp::new(seconds, nanoseconds).expect("valid");
            assert_eq!((ts.seconds(), ts.nanoseconds()), (seconds, nanoseconds));
        }
    }
}
