//! A one-slot hand-over of reusable buffers between two threads: the
//! producer fills one buffer while the consumer works on the one before it
//! (double buffering), and gets emptied buffers back. A sink task uses it so
//! that consuming from Kafka overlaps the guest's `put` of the previous
//! batch.
//!
//! At most one buffer waits in the slot and one is being worked on, so the
//! producer runs at most one buffer ahead, and [`DoubleBuffer::wait_idle`] lets it
//! wait until everything handed over is done (before a rebalance touches the
//! guest, and before the final flush).

use std::sync::{Condvar, Mutex, MutexGuard};

struct Slot<T> {
    /// Handed over, not yet taken by the consumer.
    queued: Option<T>,
    /// The consumer works on a buffer.
    busy: bool,
    /// Emptied buffers, for the producer to fill again.
    spare: Vec<T>,
    /// No more buffers will be handed over.
    closed: bool,
}

pub(crate) struct DoubleBuffer<T> {
    slot: Mutex<Slot<T>>,
    changed: Condvar,
}

impl<T> DoubleBuffer<T> {
    /// A hand-over whose producer starts with one buffer of its own and
    /// `spare` ones to take.
    pub(crate) fn new(spare: Vec<T>) -> Self {
        Self {
            slot: Mutex::new(Slot {
                queued: None,
                busy: false,
                spare,
                closed: false,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Slot<T>> {
        self.slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn wait_while<'a>(
        &self,
        guard: MutexGuard<'a, Slot<T>>,
        condition: impl FnMut(&mut Slot<T>) -> bool,
    ) -> MutexGuard<'a, Slot<T>> {
        self.changed
            .wait_while(guard, condition)
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Producer: hand a filled buffer over (waiting while the slot is
    /// taken), then take an emptied one back (waiting until there is one;
    /// `None` only if the hand-over was closed meanwhile).
    pub(crate) fn swap(&self, filled: T) -> Option<T> {
        let mut slot = self.wait_while(self.lock(), |s| s.queued.is_some());
        slot.queued = Some(filled);
        self.changed.notify_all();
        let mut slot = self.wait_while(slot, |s| s.spare.is_empty() && !s.closed);
        slot.spare.pop()
    }

    /// Producer: wait until every buffer handed over has been worked on.
    pub(crate) fn wait_idle(&self) {
        drop(self.wait_while(self.lock(), |s| s.queued.is_some() || s.busy));
    }

    /// Producer: no more buffers; the consumer's [`DoubleBuffer::take`] returns
    /// `None` once the slot is empty.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }

    /// Consumer: the next buffer to work on; `None` once closed and empty.
    pub(crate) fn take(&self) -> Option<T> {
        let mut slot = self.wait_while(self.lock(), |s| s.queued.is_none() && !s.closed);
        let next = slot.queued.take();
        slot.busy = next.is_some();
        self.changed.notify_all();
        next
    }

    /// Consumer: done with a buffer (emptied by the caller); it goes back to
    /// the producer.
    pub(crate) fn done(&self, emptied: T) {
        let mut slot = self.lock();
        slot.busy = false;
        slot.spare.push(emptied);
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_buffer_is_worked_on_once_in_order_and_wait_idle_sees_them_done() {
        let h = Arc::new(DoubleBuffer::new(vec![Vec::new()]));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let worked = Arc::new(AtomicUsize::new(0));
        let consumer = {
            let (h, seen, worked) = (h.clone(), seen.clone(), worked.clone());
            std::thread::spawn(move || {
                while let Some(mut buf) = h.take() {
                    seen.lock().unwrap().extend(buf.drain(..));
                    worked.fetch_add(1, Ordering::SeqCst);
                    h.done(buf);
                }
            })
        };
        let mut buf: Vec<u32> = Vec::new();
        for i in 0..1000u32 {
            buf.push(i);
            if i % 7 == 6 {
                buf = h.swap(buf).unwrap();
                assert!(buf.is_empty(), "a buffer comes back emptied");
            }
            if i % 100 == 99 {
                h.wait_idle();
                // Everything handed over so far has been worked on.
                let handed = (i as usize + 1) / 7;
                assert_eq!(worked.load(Ordering::SeqCst), handed);
            }
        }
        let _ = h.swap(buf);
        h.wait_idle();
        h.close();
        consumer.join().unwrap();
        assert_eq!(*seen.lock().unwrap(), (0..1000).collect::<Vec<_>>());
    }
}
