//! macOS and Windows: a plain notification through tauri-plugin-notification (title and
//! body, no buttons). The plugin can carry actions there too (a notification category on
//! macOS, toast actions on Windows), but gives no id to withdraw a notification by and
//! reports presses only while the toast is on screen; until that path is built and tested
//! on those systems, decisions happen in the window and a click opens it.

use agentdesk_core::notify::Content;
use tauri::{AppHandle, Wry};
use tauri_plugin_notification::NotificationExt;

use super::Signal;

pub struct Server {
    app: AppHandle<Wry>,
    next_id: u32,
}

impl Server {
    pub async fn connect(app: AppHandle<Wry>) -> Result<Server, tauri_plugin_notification::Error> {
        Ok(Server { app, next_id: 0 })
    }

    pub fn has_actions(&self) -> bool {
        false
    }

    pub async fn show(
        &mut self,
        content: &Content,
        _sound: bool,
    ) -> Result<u32, tauri_plugin_notification::Error> {
        self.app
            .notification()
            .builder()
            .title(&content.title)
            .body(&content.body)
            .show()?;
        self.next_id += 1;
        Ok(self.next_id)
    }

    pub async fn close(&self, _id: u32) -> Result<(), tauri_plugin_notification::Error> {
        Ok(())
    }

    /// The pending count on the dock icon (macOS; Windows has no count badge).
    pub async fn badge(&self, count: usize) -> Result<(), tauri::Error> {
        use tauri::Manager;
        if let Some(w) = self.app.get_webview_window("main") {
            w.set_badge_count((count > 0).then_some(count as i64))?;
        }
        Ok(())
    }

    pub async fn next_signal(&mut self) -> Option<Signal> {
        std::future::pending::<Option<Signal>>().await
    }
}
