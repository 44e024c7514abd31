//! The event FIFO: a ring of whole frames (§ 6.2).

use crate::protocol::{FILLER, precedes_or_equals, size};

/// The most frames any FIFO holds: FIFO_DEPTH is one byte (§ 4.1).
pub const CAPACITY: usize = 255;

/// Frames queued for the host, oldest first, each whole with its CRC. Only
/// the host removes them (ACK, FIFO_RESET, SNAPSHOT).
#[derive(Clone)]
pub struct Fifo {
    frames: [[u8; size::FRAME]; CAPACITY],
    head: usize,
    len: usize,
    depth: usize,
}

impl core::fmt::Debug for Fifo {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Fifo")
            .field("len", &self.len)
            .field("depth", &self.depth)
            .finish()
    }
}

impl Fifo {
    /// An empty FIFO of `depth` frames (at least 1).
    pub fn new(depth: u8) -> Self {
        Fifo {
            frames: [[0; size::FRAME]; CAPACITY],
            head: 0,
            len: 0,
            depth: usize::from(depth.max(1)),
        }
    }

    /// Frames queued.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no frame is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many frames it holds at most.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Queues `frame` at the tail; `false` (and nothing queued) when full.
    pub fn push(&mut self, frame: [u8; size::FRAME]) -> bool {
        if self.len >= self.depth {
            return false;
        }
        let tail = (self.head + self.len) % CAPACITY;
        self.frames[tail] = frame;
        self.len += 1;
        true
    }

    /// The `i`th frame from the oldest.
    pub fn get(&self, i: usize) -> Option<&[u8; size::FRAME]> {
        (i < self.len).then(|| &self.frames[(self.head + i) % CAPACITY])
    }

    /// Removes from the head every frame whose SEQ precedes-or-equals `seq`,
    /// and nothing else (§ 6.3).
    pub fn ack(&mut self, seq: u16) {
        while let Some(f) = self.get(0) {
            if !precedes_or_equals(u16::from_le_bytes([f[0], f[1]]), seq) {
                break;
            }
            self.head = (self.head + 1) % CAPACITY;
            self.len -= 1;
        }
    }

    /// Removes every frame.
    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }

    /// Fills `out` with the queued frames' bytes from byte `offset` of the
    /// oldest frame, then filler; returns how many bytes were frames'.
    pub fn read(&self, offset: usize, out: &mut [u8]) -> usize {
        // Frame by frame, with one division for the whole read, and the
        // filler in one fill: the Cortex-M0+ divides in software, and the
        // firmware publishes the FIFO after every scan and every write.
        let n = (self.len * size::FRAME)
            .saturating_sub(offset)
            .min(out.len());
        let mut slot = (self.head + offset / size::FRAME) % CAPACITY;
        let mut within = offset % size::FRAME;
        let mut done = 0;
        while done < n {
            let take = (size::FRAME - within).min(n - done);
            out[done..done + take].copy_from_slice(&self.frames[slot][within..within + take]);
            done += take;
            within = 0;
            slot = if slot + 1 == CAPACITY { 0 } else { slot + 1 };
        }
        out[n..].fill(FILLER);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(seq: u16) -> [u8; size::FRAME] {
        let mut f = [0; size::FRAME];
        f[..2].copy_from_slice(&seq.to_le_bytes());
        f[2] = 1;
        f
    }

    #[test]
    fn reads_oldest_first_then_filler_and_acks_remove_from_the_head() {
        let mut q = Fifo::new(16);
        for seq in [0xFFFE, 0xFFFF, 0, 1] {
            assert!(q.push(frame(seq)));
        }
        let mut out = [0; 45];
        assert_eq!(q.read(0, &mut out), 40);
        assert_eq!(out[..3], [0xFE, 0xFF, 1]);
        assert_eq!(out[30..33], [1, 0, 1]);
        assert_eq!(out[40..], [0xFF; 5]);
        q.ack(0); // across the wrap: 0xFFFE, 0xFFFF and 0 precede-or-equal 0
        assert_eq!(q.len(), 1);
        q.ack(0);
        assert_eq!(q.len(), 1, "a repeated ACK removes nothing");
        q.ack(0x8001); // 0x8000 after SEQ 1: "ahead", not after it (§ 6.1)
        assert_eq!(q.len(), 1);
        q.ack(1);
        assert!(q.is_empty());
    }

    #[test]
    fn a_full_fifo_refuses_and_the_ring_wraps() {
        let mut q = Fifo::new(16);
        for round in 0..40u16 {
            for i in 0..16 {
                assert!(q.push(frame(round * 16 + i)));
            }
            assert!(!q.push(frame(999)));
            assert_eq!(q.get(15).unwrap()[..2], (round * 16 + 15).to_le_bytes());
            q.ack(round * 16 + 15);
            assert!(q.is_empty());
        }
    }
}
