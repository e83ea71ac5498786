//! The serde serializer: every value in its smallest form (as [`encode`](fn@crate::encode)
//! writes it), and rmp-serde's conventions for what MessagePack has no notation for, so that
//! either library reads what the other wrote:
//!
//! - structs as arrays of their fields (or, with [`Serializer::with_struct_map`] /
//!   [`to_vec_named`], as maps from field names);
//! - `None` and `()` as nil, `Some(x)` as `x`, a unit struct as an empty array, a newtype
//!   struct as its field;
//! - a unit variant as its name, a newtype, tuple or struct variant as a one-entry map from
//!   its name to its content;
//! - `char` as a str, bytes (`serde_bytes`) as bin, `i128`/`u128` as a 16-byte bin;
//! - an ext as the newtype struct [`EXT_STRUCT_NAME`] around an
//!   `(i8, bytes)` tuple ([`Timestamp`](crate::timestamp::Timestamp) serializes so, as ext -1);
//! - not human-readable (rmp-serde's default, and the deserializer's): a type with two forms
//!   (an `IpAddr`, a `SocketAddr`) writes its compact one.
//!
//! A sequence or map of unknown length is written after its elements, its header inserted
//! in front once they are counted (one move of the bytes written since).

use crate::prelude::*;
use core::fmt::Display;

use serde::ser::{self, Serialize};

use crate::error::{wire_len, EncodeError, LengthOf};
use crate::wire::header;

/// The newtype-struct name through which rmp-serde (and hardpack) pass an ext: a
/// `(i8, bytes)` tuple serialized as this newtype becomes an ext of that type, and a
/// `Deserialize` type that asks for this newtype is handed an ext as that tuple.
pub const EXT_STRUCT_NAME: &str = "_ExtStruct";

impl ser::Error for EncodeError {
    fn custom<T: Display>(msg: T) -> Self {
        EncodeError::custom(msg.to_string())
    }
}

/// Writes serde values as MessagePack into a buffer.
pub struct Serializer<'w> {
    out: &'w mut Vec<u8>,
    struct_map: bool,
    /// The buffer length at which `drain` is handed what `out` holds (after an element of a
    /// sequence or an entry of a map); `usize::MAX` without a drain, or while a sequence or
    /// map of unknown length is open (its header goes in front of bytes already in `out`).
    drain_at: usize,
    drain: Option<&'w mut Drain<'w>>,
}

/// Where [`to_writer`] sends the encoded bytes as they accumulate.
type Drain<'w> = dyn FnMut(&[u8]) -> Result<(), EncodeError> + 'w;

impl<'w> Serializer<'w> {
    /// A serializer appending to `out`, structs as arrays (rmp-serde's default).
    #[inline]
    pub fn new(out: &'w mut Vec<u8>) -> Self {
        Serializer {
            out,
            struct_map: false,
            drain_at: usize::MAX,
            drain: None,
        }
    }

    /// The same serializer handing `drain` what `out` holds (and emptying it) whenever it
    /// reaches `drain_at` bytes between two elements, so that a large value is written as it
    /// is encoded, not held whole.
    #[cfg(feature = "std")]
    fn draining(mut self, drain: &'w mut Drain<'w>, drain_at: usize) -> Self {
        self.drain = Some(drain);
        self.drain_at = drain_at;
        self
    }

    /// After an element or entry: hands `drain` the bytes `out` holds if they reached
    /// `drain_at`.
    #[inline(always)]
    fn element_done(&mut self) -> Result<(), EncodeError> {
        if self.out.len() >= self.drain_at {
            return self.drain_out();
        }
        Ok(())
    }

    #[cold]
    fn drain_out(&mut self) -> Result<(), EncodeError> {
        if let Some(drain) = self.drain.as_mut() {
            drain(self.out)?;
            self.out.clear();
        }
        Ok(())
    }

    /// The same serializer writing structs as maps from field names to values (rmp-serde's
    /// `with_struct_map`, `to_vec_named`): larger, but readable without the type.
    #[must_use]
    #[inline]
    pub fn with_struct_map(mut self) -> Self {
        self.struct_map = true;
        self
    }
}

/// `value` as MessagePack, structs as arrays (what `rmp_serde::to_vec` writes).
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Point { x: i32, y: i32 }
///
/// assert_eq!(hardpack::to_vec(&Point { x: 1, y: -1 })?, [0x92, 0x01, 0xff]);
/// assert_eq!(
///     hardpack::ser::to_vec_named(&Point { x: 1, y: -1 })?,
///     [0x82, 0xa1, b'x', 0x01, 0xa1, b'y', 0xff]
/// );
/// # Ok::<(), hardpack::error::EncodeError>(())
/// ```
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, EncodeError> {
    // Room for a small message at once, not grown 8, 16, 32... bytes at a time.
    let mut out = Vec::with_capacity(INITIAL_CAPACITY);
    value.serialize(&mut Serializer::new(&mut out))?;
    Ok(out)
}

/// What [`to_vec`] and [`to_vec_named`] reserve before encoding (as rmp-serde does).
const INITIAL_CAPACITY: usize = 128;

/// How many encoded bytes [`to_writer`] gathers before it writes them.
#[cfg(feature = "std")]
pub const TO_WRITER_CHUNK: usize = 32 << 10;

/// `value` as MessagePack, structs as maps from field names (what `rmp_serde::to_vec_named`
/// writes).
pub fn to_vec_named<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(INITIAL_CAPACITY);
    value.serialize(&mut Serializer::new(&mut out).with_struct_map())?;
    Ok(out)
}

/// Writes `value` as MessagePack (structs as arrays) to `writer`.
///
/// The bytes are encoded into a buffer each thread keeps for it (up to 64 KiB is kept
/// between calls), so a small message costs no allocation and is one `write_all`. A larger
/// value is written as it is encoded, about [`TO_WRITER_CHUNK`] bytes a `write_all`, so
/// memory stays small whatever its size (but for a sequence or map of unknown length, held
/// until its header can be written). If encoding fails partway (a `Serialize` impl's error,
/// a length past 2^32 - 1), the chunks handed to `writer` before the failure stay written; a
/// value that fails before its first chunk is full writes nothing.
#[cfg(feature = "std")]
pub fn to_writer<W: std::io::Write, T: Serialize + ?Sized>(
    writer: &mut W,
    value: &T,
) -> Result<(), EncodeError> {
    /// Buffers larger than this are not kept after the call.
    const KEPT_CAPACITY: usize = 64 << 10;
    std::thread_local! {
        static BUFFER: core::cell::RefCell<Vec<u8>> = const { core::cell::RefCell::new(Vec::new()) };
    }
    let mut write = |bytes: &[u8]| {
        writer
            .write_all(bytes)
            .map_err(|e| EncodeError::custom(format!("writing the encoding failed: {e}")))
    };
    let mut encode_and_write = |bytes: &mut Vec<u8>| {
        value.serialize(&mut Serializer::new(bytes).draining(&mut write, TO_WRITER_CHUNK))?;
        write(bytes)
    };
    BUFFER.with(|buffer| match buffer.try_borrow_mut() {
        Ok(mut bytes) => {
            bytes.clear();
            let written = encode_and_write(&mut bytes);
            if bytes.capacity() > KEPT_CAPACITY {
                *bytes = Vec::new();
            }
            written
        }
        // A `Serialize` impl that calls `to_writer` itself: a buffer of its own.
        Err(_) => encode_and_write(&mut Vec::new()),
    })
}

/// An array or map being written: its count known up front (header written), or counted as
/// its elements arrive (header inserted at `start` when it ends).
pub struct Compound<'a, 'w> {
    ser: &'a mut Serializer<'w>,
    /// `Some((start, items))` for a length not known up front.
    unknown: Option<(usize, usize)>,
    is_map: bool,
    /// The serializer's `drain_at` to restore when a sequence or map of unknown length ends
    /// (nothing is drained while it is open).
    drain_at: usize,
}

impl Compound<'_, '_> {
    #[inline]
    fn count(&mut self) {
        if let Some((_, items)) = &mut self.unknown {
            *items = items.saturating_add(1);
        }
    }

    #[inline(always)]
    fn finish(self) -> Result<(), EncodeError> {
        if let Some((start, items)) = self.unknown {
            return self.insert_header(start, items);
        }
        Ok(())
    }

    /// Ends a sequence or map of unknown length: its header, now that its items are
    /// counted, goes in front of them.
    #[cold]
    fn insert_header(self, start: usize, items: usize) -> Result<(), EncodeError> {
        let mut head = Vec::new();
        if self.is_map {
            header::write_map_len(wire_len(LengthOf::Map, items)?, &mut head);
        } else {
            header::write_array_len(wire_len(LengthOf::Array, items)?, &mut head);
        }
        let start = start.min(self.ser.out.len());
        self.ser.out.splice(start..start, head);
        self.ser.drain_at = self.drain_at;
        Ok(())
    }
}

impl<'a, 'w> Serializer<'w> {
    #[inline(always)]
    fn compound(
        &'a mut self,
        len: Option<usize>,
        is_map: bool,
    ) -> Result<Compound<'a, 'w>, EncodeError> {
        let drain_at = self.drain_at;
        let unknown = match len {
            Some(n) if is_map => {
                header::write_map_len(wire_len(LengthOf::Map, n)?, self.out);
                None
            }
            Some(n) => {
                header::write_array_len(wire_len(LengthOf::Array, n)?, self.out);
                None
            }
            None => {
                self.drain_at = usize::MAX;
                Some((self.out.len(), 0))
            }
        };
        Ok(Compound {
            ser: self,
            unknown,
            is_map,
            drain_at,
        })
    }

    /// A one-entry map from a variant's name to what follows it.
    #[inline]
    fn variant(&mut self, variant: &str) -> Result<(), EncodeError> {
        header::write_map_len(1, self.out);
        ser::Serializer::serialize_str(self, variant)
    }
}

impl<'a, 'w> ser::Serializer for &'a mut Serializer<'w> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Compound<'a, 'w>;
    type SerializeTuple = Compound<'a, 'w>;
    type SerializeTupleStruct = Compound<'a, 'w>;
    type SerializeTupleVariant = Compound<'a, 'w>;
    type SerializeMap = Compound<'a, 'w>;
    type SerializeStruct = Compound<'a, 'w>;
    type SerializeStructVariant = Compound<'a, 'w>;

    /// Not human-readable, as rmp-serde's default and as the deserializer: types that
    /// write themselves two ways (addresses, times, ids) take their compact form, the one
    /// the other side expects.
    fn is_human_readable(&self) -> bool {
        false
    }

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<(), EncodeError> {
        header::write_bool(v, self.out);
        Ok(())
    }

    #[inline]
    fn serialize_i8(self, v: i8) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(v))
    }

    #[inline]
    fn serialize_i16(self, v: i16) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(v))
    }

    #[inline]
    fn serialize_i32(self, v: i32) -> Result<(), EncodeError> {
        self.serialize_i64(i64::from(v))
    }

    #[inline]
    fn serialize_i64(self, v: i64) -> Result<(), EncodeError> {
        match u64::try_from(v) {
            Ok(u) => header::write_uint(u, self.out),
            Err(_) => header::write_negative(v, self.out),
        }
        Ok(())
    }

    #[inline]
    fn serialize_i128(self, v: i128) -> Result<(), EncodeError> {
        self.serialize_bytes(&v.to_be_bytes())
    }

    #[inline]
    fn serialize_u8(self, v: u8) -> Result<(), EncodeError> {
        header::write_u8(v, self.out);
        Ok(())
    }

    #[inline]
    fn serialize_u16(self, v: u16) -> Result<(), EncodeError> {
        self.serialize_u64(u64::from(v))
    }

    #[inline]
    fn serialize_u32(self, v: u32) -> Result<(), EncodeError> {
        self.serialize_u64(u64::from(v))
    }

    #[inline]
    fn serialize_u64(self, v: u64) -> Result<(), EncodeError> {
        header::write_uint(v, self.out);
        Ok(())
    }

    #[inline]
    fn serialize_u128(self, v: u128) -> Result<(), EncodeError> {
        self.serialize_bytes(&v.to_be_bytes())
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<(), EncodeError> {
        header::write_f32(v, self.out);
        Ok(())
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<(), EncodeError> {
        header::write_f64(v, self.out);
        Ok(())
    }

    #[inline]
    fn serialize_char(self, v: char) -> Result<(), EncodeError> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), EncodeError> {
        header::write_str(v, wire_len(LengthOf::Str, v.len())?, self.out);
        Ok(())
    }

    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<(), EncodeError> {
        header::write_bin_len(wire_len(LengthOf::Bin, v.len())?, self.out);
        self.out.extend_from_slice(v);
        Ok(())
    }

    #[inline]
    fn serialize_none(self) -> Result<(), EncodeError> {
        self.serialize_unit()
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), EncodeError> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<(), EncodeError> {
        header::write_nil(self.out);
        Ok(())
    }

    #[inline]
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), EncodeError> {
        header::write_array_len(0, self.out);
        Ok(())
    }

    #[inline]
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), EncodeError> {
        self.serialize_str(variant)
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        if name == crate::ser::EXT_STRUCT_NAME {
            let mut ext = ExtParts::default();
            value.serialize(&mut ext)?;
            return match (ext.ext_type, ext.data) {
                (Some(ext_type), Some(data)) => {
                    let len = wire_len(LengthOf::Ext, data.len())?;
                    header::write_ext_header(ext_type, len, self.out);
                    self.out.extend_from_slice(&data);
                    Ok(())
                }
                _ => Err(EncodeError::custom(
                    "an ext must be serialized as an (i8, bytes) tuple".to_string(),
                )),
            };
        }
        value.serialize(self)
    }

    #[inline]
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        self.variant(variant)?;
        value.serialize(self)
    }

    #[inline(always)]
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, 'w>, EncodeError> {
        self.compound(len, false)
    }

    #[inline(always)]
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, 'w>, EncodeError> {
        self.compound(Some(len), false)
    }

    #[inline(always)]
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'w>, EncodeError> {
        self.compound(Some(len), false)
    }

    #[inline]
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'w>, EncodeError> {
        self.variant(variant)?;
        self.compound(Some(len), false)
    }

    #[inline(always)]
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a, 'w>, EncodeError> {
        self.compound(len, true)
    }

    #[inline(always)]
    fn serialize_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'w>, EncodeError> {
        let as_map = self.struct_map;
        self.compound(Some(len), as_map)
    }

    #[inline]
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'w>, EncodeError> {
        self.variant(variant)?;
        self.serialize_struct(name, len)
    }
}

impl ser::SerializeSeq for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    #[inline(always)]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        self.count();
        value.serialize(&mut *self.ser)?;
        self.ser.element_done()
    }

    #[inline(always)]
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl ser::SerializeTuple for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    #[inline(always)]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    #[inline(always)]
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    #[inline(always)]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    #[inline(always)]
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    #[inline(always)]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        ser::SerializeSeq::serialize_element(self, value)
    }

    #[inline(always)]
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    #[inline(always)]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), EncodeError> {
        self.count();
        key.serialize(&mut *self.ser)
    }

    #[inline(always)]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        value.serialize(&mut *self.ser)?;
        self.ser.element_done()
    }

    #[inline(always)]
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl ser::SerializeStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    #[inline(always)]
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        if self.is_map {
            ser::Serializer::serialize_str(&mut *self.ser, key)?;
        }
        value.serialize(&mut *self.ser)
    }

    #[inline(always)]
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Compound<'_, '_> {
    type Ok = ();
    type Error = EncodeError;

    #[inline(always)]
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }

    #[inline(always)]
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

/// Catches the `(i8, bytes)` tuple inside an ext newtype.
#[derive(Default)]
struct ExtParts {
    ext_type: Option<i8>,
    data: Option<Vec<u8>>,
}

/// Methods of the ext-part serializer that take one argument and refuse it.
macro_rules! refuse {
    ($($method:ident($arg:ty))*) => {
        $(
            fn $method(self, _: $arg) -> Result<(), EncodeError> {
                Err(not_ext_part())
            }
        )*
    };
}

fn not_ext_part() -> EncodeError {
    EncodeError::custom("an ext must be serialized as an (i8, bytes) tuple".to_string())
}

impl ser::Serializer for &mut ExtParts {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = ser::Impossible<(), EncodeError>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = ser::Impossible<(), EncodeError>;
    type SerializeTupleVariant = ser::Impossible<(), EncodeError>;
    type SerializeMap = ser::Impossible<(), EncodeError>;
    type SerializeStruct = ser::Impossible<(), EncodeError>;
    type SerializeStructVariant = ser::Impossible<(), EncodeError>;

    #[inline]
    fn serialize_i8(self, v: i8) -> Result<(), EncodeError> {
        self.ext_type = Some(v);
        Ok(())
    }
    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<(), EncodeError> {
        self.data = Some(v.to_vec());
        Ok(())
    }
    #[inline(always)]
    fn serialize_tuple(self, len: usize) -> Result<Self, EncodeError> {
        if len == 2 {
            Ok(self)
        } else {
            Err(not_ext_part())
        }
    }
    refuse! {
        serialize_bool(bool) serialize_i16(i16) serialize_i32(i32) serialize_i64(i64)
        serialize_u8(u8) serialize_u16(u16) serialize_u32(u32) serialize_u64(u64)
        serialize_f32(f32) serialize_f64(f64) serialize_char(char) serialize_str(&str)
        serialize_unit_struct(&'static str)
    }
    fn serialize_none(self) -> Result<(), EncodeError> {
        Err(not_ext_part())
    }
    fn serialize_unit(self) -> Result<(), EncodeError> {
        Err(not_ext_part())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), EncodeError> {
        Err(not_ext_part())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), EncodeError> {
        Err(not_ext_part())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), EncodeError> {
        Err(not_ext_part())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), EncodeError> {
        Err(not_ext_part())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, EncodeError> {
        Err(not_ext_part())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, EncodeError> {
        Err(not_ext_part())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, EncodeError> {
        Err(not_ext_part())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, EncodeError> {
        Err(not_ext_part())
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, EncodeError> {
        Err(not_ext_part())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, EncodeError> {
        Err(not_ext_part())
    }
}

impl ser::SerializeTuple for &mut ExtParts {
    type Ok = ();
    type Error = EncodeError;

    #[inline(always)]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        value.serialize(&mut **self)
    }

    #[inline(always)]
    fn end(self) -> Result<(), EncodeError> {
        Ok(())
    }
}

pub use crate::value::ser::SERIALIZE_MAX_DEPTH;
