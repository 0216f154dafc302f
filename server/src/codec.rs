//! The gRPC message codec, and the statuses of requests refused before any handler runs.
//!
//! [`BigtableCodec`] is prost's codec with one change: a request nested past prost's
//! recursion limit (100 levels, e.g. a RowFilter chain inside a chain ...) is
//! INVALID_ARGUMENT, the client's mistake, as a filter nested 21 to 100 levels already is
//! (the engine's depth limit); prost's codec calls it INTERNAL. Other undecodable bytes keep
//! gRPC's INTERNAL.
//!
//! [`oversized_is_resource_exhausted`] rewrites tonic's answer to a request over the
//! server's message size limit from OUT_OF_RANGE to RESOURCE_EXHAUSTED, the code gRPC
//! specifies (and its other implementations send) for a message larger than the receiver
//! accepts. tonic refuses such a request from its length prefix, before reading the body or
//! calling any handler, so the only place to change the code is the response.

use std::marker::PhantomData;

use prost::Message;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::Status;
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// prost's codec, with nesting past prost's recursion limit answered INVALID_ARGUMENT.
#[derive(Debug, Clone)]
pub struct BigtableCodec<T, U> {
    inner: ProstCodec<T, U>,
}

impl<T, U> Default for BigtableCodec<T, U> {
    fn default() -> Self {
        BigtableCodec {
            inner: ProstCodec::default(),
        }
    }
}

impl<T, U> Codec for BigtableCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = BigtableDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        self.inner.encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        BigtableDecoder {
            inner: self.inner.decoder(),
            _message: PhantomData,
        }
    }
}

/// prost's decoder, with the recursion limit mapped to INVALID_ARGUMENT.
#[derive(Debug)]
pub struct BigtableDecoder<U> {
    inner: ProstDecoder<U>,
    _message: PhantomData<U>,
}

impl<U: Message + Default> Decoder for BigtableDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.inner.decode(buf).map_err(|status| {
            if status.message().contains("recursion limit reached") {
                // prost's message lists every enclosing field: too long to pass on.
                Status::invalid_argument(
                    "the request's messages are nested more than 100 levels deep \
                     (a RowFilter may nest at most 20)",
                )
            } else {
                status
            }
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.inner.buffer_settings()
    }
}

/// The start of tonic's `grpc-message` (percent-encoded, as on the wire) for a request over
/// the receive limit (tonic `codec/decode.rs`).
const TOO_LARGE: &str = "Error,%20decoded%20message%20length%20too%20large";

/// Rewrites the status of a response that refuses an oversized request from OUT_OF_RANGE
/// to RESOURCE_EXHAUSTED; every other response passes unchanged. tonic answers such a
/// request with a trailers-only response, so the status is in the headers.
pub fn oversized_is_resource_exhausted<B>(mut response: http::Response<B>) -> http::Response<B> {
    let headers = response.headers_mut();
    let out_of_range = headers
        .get("grpc-status")
        .is_some_and(|s| s.as_bytes() == b"11");
    let too_large = headers
        .get("grpc-message")
        .is_some_and(|m| m.as_bytes().starts_with(TOO_LARGE.as_bytes()));
    if out_of_range && too_large {
        headers.insert("grpc-status", http::HeaderValue::from_static("8"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_oversized_request_status_is_rewritten() {
        let status = Status::out_of_range(
            "Error, decoded message length too large: found 300 bytes, the limit is: 200 bytes",
        );
        let response = oversized_is_resource_exhausted(status.into_http::<()>());
        assert_eq!(response.headers()["grpc-status"], "8");
        let engine = Status::out_of_range("increment overflows");
        let response = oversized_is_resource_exhausted(engine.into_http::<()>());
        assert_eq!(response.headers()["grpc-status"], "11");
    }
}
