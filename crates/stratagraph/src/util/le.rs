//! Little-endian fields read out of byte buffers, for every file format
//! (segments, manifest, log). Callers check lengths first; these slice.

/// The `u32` at byte `at` of `b`.
#[inline]
pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(array(&b[at..at + 4]))
}

/// The `u64` at byte `at` of `b`.
#[inline]
pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(array(&b[at..at + 8]))
}

/// The first `N` bytes of `b` as an array.
#[inline]
pub(crate) fn array<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[..N]);
    a
}

/// Why bytes that may be damaged did not read: the offset (from the start
/// of the bytes given) and what was wrong there. Callers add the file.
#[derive(Debug, PartialEq)]
pub(crate) struct Malformed {
    pub at: usize,
    pub what: String,
}

/// A read position in bytes that may be damaged (a log payload, a
/// properties file): every read is checked against the bytes left, and
/// fails naming the offset instead of panicking.
pub(crate) struct Cursor<'a> {
    b: &'a [u8],
    /// The offset of the next byte to read.
    pub at: usize,
    /// What the bytes are, for messages ("the payload", "the file").
    whole: &'static str,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(b: &'a [u8], at: usize, whole: &'static str) -> Self {
        Cursor { b, at, whole }
    }

    /// Bytes not read yet.
    pub(crate) fn left(&self) -> usize {
        self.b.len() - self.at
    }

    /// The next `n` bytes; `what` names them in the error.
    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], Malformed> {
        let b: &'a [u8] = self.b;
        match self.at.checked_add(n).filter(|&e| e <= b.len()) {
            Some(end) => {
                let out = &b[self.at..end];
                self.at = end;
                Ok(out)
            }
            None => Err(Malformed {
                at: self.at,
                what: format!("{} ends inside {what}", self.whole),
            }),
        }
    }

    pub(crate) fn u8(&mut self, what: &str) -> Result<u8, Malformed> {
        Ok(self.take(1, what)?[0])
    }

    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, Malformed> {
        Ok(u32::from_le_bytes(array(self.take(4, what)?)))
    }

    pub(crate) fn u64(&mut self, what: &str) -> Result<u64, Malformed> {
        Ok(u64::from_le_bytes(array(self.take(8, what)?)))
    }

    /// A count of items of at least `size` bytes each, which must fit in
    /// what is left: checked before anything is allocated for them, so a
    /// damaged count cannot exhaust memory.
    pub(crate) fn count(&mut self, n: u64, size: u64, what: &str) -> Result<usize, Malformed> {
        if n.checked_mul(size)
            .is_none_or(|need| need > self.left() as u64)
        {
            return Err(Malformed {
                at: self.at,
                what: format!("{what} count {n} does not fit in {}", self.whole),
            });
        }
        Ok(n as usize)
    }

    /// A `u32` length, then that many bytes.
    pub(crate) fn bytes(&mut self, what: &str) -> Result<&'a [u8], Malformed> {
        let n = self.u32(what)?;
        let n = self.count(u64::from(n), 1, what)?;
        self.take(n, what)
    }

    /// A `u32` length, then that many bytes of UTF-8.
    pub(crate) fn str(&mut self, what: &str) -> Result<&'a str, Malformed> {
        let at = self.at;
        let bytes = self.bytes(what)?;
        std::str::from_utf8(bytes).map_err(|e| Malformed {
            at,
            what: format!("{what} is not UTF-8 ({e})"),
        })
    }
}
