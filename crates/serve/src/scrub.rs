//! Upstream API keys taken out of everything passed back to a client: an upstream
//! that echoes the `Authorization` header it was sent (401 pages often do) must not
//! hand the router's key to whoever called the router. Whole answers are scrubbed at
//! once; streamed ones chunk by chunk, holding back the end of a chunk that could be
//! the start of a key cut across two chunks.

/// What a key is replaced by.
const REDACTED: &[u8] = b"[API key]";

/// Replaces the keys in a byte stream as it passes, whatever the chunk boundaries.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyScrubber {
    keys: Vec<Vec<u8>>,
    held: Vec<u8>,
}

impl KeyScrubber {
    /// A scrubber of `keys` (empty keys are ignored).
    pub fn new<'a>(keys: impl IntoIterator<Item = &'a str>) -> Self {
        let keys = keys
            .into_iter()
            .filter(|k| !k.is_empty())
            .map(|k| k.as_bytes().to_vec())
            .collect();
        Self {
            keys,
            held: Vec::new(),
        }
    }

    /// `bytes` scrubbed whole (no stream around them).
    pub fn whole(&self, bytes: &[u8]) -> Vec<u8> {
        let mut scrubber = self.clone();
        let mut out = scrubber.push(bytes);
        out.extend(scrubber.finish());
        out
    }

    /// The next chunk of a stream: what can be passed on now. The longest end of it
    /// that begins some key is held until the next chunk (or [`KeyScrubber::finish`]).
    pub fn push(&mut self, chunk: &[u8]) -> Vec<u8> {
        self.held.extend_from_slice(chunk);
        let mut text = std::mem::take(&mut self.held);
        for key in &self.keys {
            text = replace_all(&text, key, REDACTED);
        }
        let hold = self
            .keys
            .iter()
            .map(|key| longest_end_beginning(&text, key))
            .max()
            .unwrap_or(0);
        self.held = text.split_off(text.len() - hold);
        text
    }

    /// What was held at the stream's end (a key's beginning that no key followed).
    pub fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.held)
    }
}

/// `text` with every occurrence of `from` replaced by `to`, left to right.
fn replace_all(text: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    while at < text.len() {
        if text[at..].starts_with(from) {
            out.extend_from_slice(to);
            at += from.len();
        } else {
            out.push(text[at]);
            at += 1;
        }
    }
    out
}

/// The length of the longest end of `text` that is a proper beginning of `key`.
fn longest_end_beginning(text: &[u8], key: &[u8]) -> usize {
    (1..key.len().min(text.len() + 1))
        .rev()
        .find(|&n| text.ends_with(&key[..n]))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key cut at every place across two chunks, and across many one-byte chunks,
    /// never passes; the text around it passes whole and in order.
    #[test]
    fn a_key_cut_across_chunks_never_passes() {
        let key = "sk-live-0123456789abcdef";
        let text = format!("error: you sent Authorization: Bearer {key}, and again {key}.");
        let expected = "error: you sent Authorization: Bearer [API key], and again [API key].";
        for cut in 0..=text.len() {
            let mut scrubber = KeyScrubber::new([key]);
            let mut out = scrubber.push(&text.as_bytes()[..cut]);
            out.extend(scrubber.push(&text.as_bytes()[cut..]));
            out.extend(scrubber.finish());
            assert_eq!(String::from_utf8(out).unwrap(), expected, "cut at {cut}");
        }
        let mut scrubber = KeyScrubber::new([key]);
        let mut out = Vec::new();
        for byte in text.as_bytes() {
            out.extend(scrubber.push(std::slice::from_ref(byte)));
        }
        out.extend(scrubber.finish());
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn a_beginning_of_a_key_that_no_key_follows_is_passed_at_the_end() {
        let scrubber = KeyScrubber::new(["secret"]);
        assert_eq!(scrubber.whole(b"the secr"), b"the secr");
        assert_eq!(scrubber.whole(b"no key here"), b"no key here");
        assert_eq!(KeyScrubber::new([""]).whole(b"abc"), b"abc");
    }
}
