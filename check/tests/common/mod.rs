//! Types more than one test file checks.

use serde::{Deserialize, Deserializer};

/// A hash that checks its length: the tracer must find 32 bytes to get past it.
#[derive(Debug)]
pub struct Hash(#[allow(dead_code)] [u8; 32]);

impl<'de> Deserialize<'de> for Hash {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes: serde_bytes::ByteBuf = Deserialize::deserialize(d)?;
        let array: [u8; 32] = bytes
            .as_ref()
            .try_into()
            .map_err(|_| serde::de::Error::invalid_length(bytes.len(), &"32 bytes"))?;
        Ok(Hash(array))
    }
}
