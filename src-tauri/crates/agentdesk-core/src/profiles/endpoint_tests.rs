//! Issue 19 item 7: a profile's endpoint (base URL, key variable, routing variables) changed
//! from the window needs the user's confirmation, once per endpoint.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use agentdesk_protocol::ui::{Engine, ProfileSpec, SECRET_MASK};

use super::*;
use crate::profiles::tests::spec;

fn fields(c: &Option<EndpointChange>) -> Vec<String> {
    c.as_ref().expect("a confirmation is needed").fields.clone()
}

#[tokio::test]
async fn a_new_endpoint_is_confirmed_once_and_other_edits_ask_nothing() {
    let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
    // Saved from the CLI (no confirmation there): its endpoint is the profile's own.
    let p = desk.create_profile(&ws.id, &spec("p")).await.unwrap();
    let mut edit = p.spec.clone();
    edit.model = Some("claude-opus-4".into());
    edit.system_prompt = Some("Be terse.".into());
    assert_eq!(
        desk.profile_endpoint_check(&p.id, &edit).await.unwrap(),
        None
    );

    // Another URL with the same key variable: the key would go there.
    edit.base_url = Some("https://collector.example.net/v1".into());
    let change = desk.profile_endpoint_check(&p.id, &edit).await.unwrap();
    assert_eq!(fields(&change), ["baseUrl"]);
    let text = change.as_ref().unwrap().describe();
    assert!(
        text.contains("https://collector.example.net/v1")
            && text.contains("EXAMPLE_API_KEY")
            && text.contains("“p”"),
        "{text}"
    );
    // Not confirmed: still asked. Confirmed: not asked again (this profile or another).
    assert!(desk
        .profile_endpoint_check(&p.id, &edit)
        .await
        .unwrap()
        .is_some());
    desk.confirm_endpoint(change.as_ref().unwrap())
        .await
        .unwrap();
    assert_eq!(
        desk.profile_endpoint_check(&p.id, &edit).await.unwrap(),
        None
    );

    // The confirmed URL with another key variable is another combination.
    edit.api_key_env = Some("GITHUB_TOKEN".into());
    let change = desk.profile_endpoint_check(&p.id, &edit).await.unwrap();
    assert_eq!(fields(&change), ["baseUrl", "apiKeyEnv"]);

    // Variables that route the traffic count too; others do not.
    let mut proxied = p.spec.clone();
    proxied.env.insert("RUST_LOG".into(), "trace".into());
    assert_eq!(
        desk.profile_endpoint_check(&p.id, &proxied).await.unwrap(),
        None
    );
    proxied
        .env
        .insert("HTTPS_PROXY".into(), "http://10.0.0.9:8080".into());
    let change = desk.profile_endpoint_check(&p.id, &proxied).await.unwrap();
    assert_eq!(fields(&change), ["env.HTTPS_PROXY"]);
    let mut redirected = p.spec.clone();
    redirected
        .env
        .insert("ANTHROPIC_BASE_URL".into(), "http://evil.test".into());
    assert!(desk
        .profile_endpoint_check(&p.id, &redirected)
        .await
        .unwrap()
        .is_some());

    // Back to the engine's own service and login: nothing to confirm.
    let mut plain = p.spec.clone();
    plain.base_url = None;
    plain.api_key_env = None;
    assert_eq!(
        desk.profile_endpoint_check(&p.id, &plain).await.unwrap(),
        None
    );
    // An invalid spec is refused by the save itself, not asked about.
    let mut bad = edit.clone();
    bad.name = String::new();
    assert_eq!(
        desk.profile_endpoint_check(&p.id, &bad).await.unwrap(),
        None
    );
}

#[tokio::test]
async fn a_new_profile_asks_unless_the_workspace_already_uses_its_endpoint() {
    let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
    let mut first = spec("first");
    first.engine = Engine::Codex;
    assert!(desk
        .new_profile_endpoint_check(&ws.id, &first)
        .await
        .unwrap()
        .is_some());
    desk.create_profile(&ws.id, &first).await.unwrap();
    let mut second = first.clone();
    second.name = "second".into();
    assert_eq!(
        desk.new_profile_endpoint_check(&ws.id, &second)
            .await
            .unwrap(),
        None
    );
    second.base_url = Some("http://127.0.0.1:9999/v1".into());
    let change = desk
        .new_profile_endpoint_check(&ws.id, &second)
        .await
        .unwrap();
    assert_eq!(fields(&change), ["baseUrl", "apiKeyEnv"]);
    let mut default = ProfileSpec::new("default", Engine::Claude);
    default.model = None;
    assert_eq!(
        desk.new_profile_endpoint_check(&ws.id, &default)
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn a_masked_secret_routing_value_is_the_stored_one() {
    let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
    let mut s = spec("s");
    s.env
        .insert("HTTPS_PROXY".into(), "http://user:pw@proxy.lan:3128".into());
    s.secret_env = vec!["HTTPS_PROXY".into()];
    let p = desk.create_profile(&ws.id, &s).await.unwrap();
    let mut edit = desk.get_profile(&p.id).await.unwrap().spec.masked();
    assert_eq!(edit.env["HTTPS_PROXY"], SECRET_MASK);
    edit.model = Some("claude-opus-4".into());
    assert_eq!(
        desk.profile_endpoint_check(&p.id, &edit).await.unwrap(),
        None
    );
    edit.env
        .insert("HTTPS_PROXY".into(), "http://attacker.test:3128".into());
    let change = desk.profile_endpoint_check(&p.id, &edit).await.unwrap();
    let text = change.unwrap().describe();
    // A secret value is never shown, nor kept in the settings in clear.
    assert!(
        text.contains("(secret value)") && !text.contains("attacker"),
        "{text}"
    );
    let fp = ProfileEndpoint::of(&s).fingerprint();
    assert_eq!(fp.len(), 64);
}

/// Issue 24: an MCP server is a program the engine runs (or a URL it calls with a token): one
/// added or changed from the window is confirmed like an endpoint; turning one off is not.
#[tokio::test]
async fn an_mcp_server_from_the_window_is_confirmed() {
    use agentdesk_protocol::ui::McpServer;
    let (desk, ws, _dirs) = crate::test_desk::desk_with_workspace().await;
    let p = desk.create_profile(&ws.id, &spec("p")).await.unwrap();
    let mut edit = p.spec.clone();
    let mut notes = McpServer::stdio("notes", "/usr/bin/notes-server");
    notes.env_vars = vec!["NOTES_TOKEN".into()];
    edit.mcp_servers = vec![notes];
    let change = desk.profile_endpoint_check(&p.id, &edit).await.unwrap();
    assert_eq!(fields(&change), ["mcpServers.notes"]);
    let text = change.as_ref().unwrap().describe();
    assert!(
        text.contains("runs /usr/bin/notes-server (given NOTES_TOKEN)"),
        "{text}"
    );
    desk.confirm_endpoint(change.as_ref().unwrap())
        .await
        .unwrap();
    assert_eq!(
        desk.profile_endpoint_check(&p.id, &edit).await.unwrap(),
        None
    );
    // Another program under the same name is asked again.
    edit.mcp_servers[0].command = Some("/tmp/evil".into());
    assert!(desk
        .profile_endpoint_check(&p.id, &edit)
        .await
        .unwrap()
        .is_some());
    // Off: nothing runs, nothing to confirm.
    edit.mcp_servers[0].enabled = false;
    assert_eq!(
        desk.profile_endpoint_check(&p.id, &edit).await.unwrap(),
        None
    );
}
