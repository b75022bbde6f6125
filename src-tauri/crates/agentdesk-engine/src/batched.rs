//! A receiver that hands out one item at a time from the batches a reader task sends.
//!
//! The transport sends the lines of one read of stdout as one channel message, and the RPC
//! peer the events they produced: a streamed answer is thousands of small lines a second, and a
//! channel hop (a wake-up of the receiving task) per line cost more than decoding the line.

use tokio::sync::mpsc;

/// A channel whose messages are batches.
pub trait BatchSource<T> {
    fn recv_batch(&mut self) -> impl std::future::Future<Output = Option<Vec<T>>> + Send;
}

impl<T: Send> BatchSource<T> for mpsc::Receiver<Vec<T>> {
    fn recv_batch(&mut self) -> impl std::future::Future<Output = Option<Vec<T>>> + Send {
        self.recv()
    }
}

impl<T: Send> BatchSource<T> for mpsc::UnboundedReceiver<Vec<T>> {
    fn recv_batch(&mut self) -> impl std::future::Future<Output = Option<Vec<T>>> + Send {
        self.recv()
    }
}

/// Items one at a time, in order, out of the batches received from `R`.
#[derive(Debug)]
pub struct Batched<T, R> {
    /// The batches themselves (tests look at how lines were grouped).
    pub(crate) rx: R,
    batch: std::vec::IntoIter<T>,
}

impl<T, R> Batched<T, R> {
    pub(crate) fn new(rx: R) -> Self {
        Self {
            rx,
            batch: Vec::new().into_iter(),
        }
    }

    /// True while items of the current batch are waiting (more are ready without waiting): a
    /// consumer that merges or buffers its output can hold it until the batch is drained.
    pub fn has_buffered(&self) -> bool {
        self.batch.len() > 0
    }
}

impl<T, R: BatchSource<T>> Batched<T, R> {
    /// The next item; `None` once the sender is gone and everything was handed out.
    /// Cancel-safe (usable in `select!`): a batch is kept as soon as it is received.
    pub async fn recv(&mut self) -> Option<T> {
        if let Some(item) = self.batch.next() {
            return Some(item);
        }
        loop {
            let batch = self.rx.recv_batch().await?;
            self.batch = batch.into_iter();
            if let Some(item) = self.batch.next() {
                return Some(item);
            }
        }
    }
}
