//! Remembering the window's size and position.
//!
//! tauri-plugin-window-state restores the window at start and saves on a clean exit. A desktop
//! app is often not closed cleanly (logout, kill, crash, a WebDriver session ending), so we
//! also save shortly after the user stops moving or resizing the window.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tauri::{AppHandle, Runtime, WindowEvent};
use tauri_plugin_window_state::{AppHandleExt, StateFlags};

/// Quiet time after the last move/resize before writing the state file.
const SAVE_DELAY: Duration = Duration::from_millis(400);

#[derive(Default, Clone)]
pub struct WindowStateSaver {
    generation: Arc<AtomicU64>,
}

impl WindowStateSaver {
    pub fn on_event<R: Runtime>(&self, app: &AppHandle<R>, event: &WindowEvent) {
        if !matches!(event, WindowEvent::Resized(_) | WindowEvent::Moved(_)) {
            return;
        }
        // Debounce: only the last event of a burst (a drag) saves.
        let mine = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let generation = Arc::clone(&self.generation);
        let app = app.clone();
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(SAVE_DELAY).await;
            if generation.load(Ordering::SeqCst) == mine {
                if let Err(e) = app.save_window_state(StateFlags::all()) {
                    tracing::warn!(error = %e, "cannot save the window state");
                }
            }
        });
    }
}
