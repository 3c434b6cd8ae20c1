"""Webhook subscriptions (API.md, Webhooks): made and deleted by the treasurer.

The answer to a subscription shows its secret once; the idempotency receipt keeps it out,
so a repeat of the same request answers the subscription with `secret` null.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from application.base import Decision, LedgerBase, Outcome
from domain.aggregates import Webhook
from domain.aggregates.webhook import URL_LENGTH_MAX
from domain.errors import NotAllowed, NotFound, NotNow


class WebhookCommands(LedgerBase):
    def create_webhook(self, url: str, events: list[str], *, created_by: str,
                       key: str | None = None) -> Outcome:
        """Subscribe `url` to some event types; the answer carries the signing secret."""
        def decide() -> Decision:
            _check_url(url)
            webhook = Webhook.subscribe(url=url, events=events, created_by=created_by)
            return [webhook], {"id": str(webhook.id), "url": webhook.url,
                               "events": list(webhook.events), "secret": webhook.secret}
        return self._command("create_webhook", {"url": url, "events": sorted(events)}, key,
                             decide, secret=("secret",))

    def delete_webhook(self, webhook_id: str, *, deleted_by: str, key: str | None = None
                       ) -> Outcome:
        """No more deliveries to this subscription, pending ones included."""
        def decide() -> Decision:
            webhook = self.webhook(webhook_id)
            webhook.delete(deleted_by=deleted_by)
            return [webhook], {"id": webhook_id}
        return self._command("delete_webhook", {"id": webhook_id}, key, decide)

    def enable_webhook(self, webhook_id: str, enabled: bool, *, by: str,
                       key: str | None = None) -> Outcome:
        """Enabled again, a subscription resumes from its oldest delivery not yet made
        (those of the events while it was disabled included); disabled, it waits."""
        def decide() -> Decision:
            webhook = self.webhook(webhook_id)
            webhook.enable(enabled, by=by)
            return [webhook], {"id": webhook_id, "url": webhook.url,
                               "events": list(webhook.events),
                               "status": "active" if enabled else "disabled"}
        return self._command("enable_webhook", {"id": webhook_id, "enabled": enabled}, key,
                             decide)

    def replay_webhook(self, webhook_id: str, from_position: int, *, by: str,
                       key: str | None = None) -> Outcome:
        """Every delivery of the subscription from `from_position` is made again."""
        def decide() -> Decision:
            head = self.recorder.max_notification_id() or 0
            if from_position > head:
                raise NotNow(f"from_position {from_position} is beyond the end of the event "
                              f"log (position {head})")
            webhook = self.webhook(webhook_id)
            webhook.replay(from_position, by=by)
            return [webhook], {"id": webhook_id, "from_position": from_position}
        return self._command("replay_webhook", {"id": webhook_id, "from": from_position}, key,
                             decide)

    def webhook(self, webhook_id: str) -> Webhook:
        """A subscription that has not been deleted; 404 otherwise."""
        webhook = self._load(Webhook, webhook_id, "webhook", False)
        if webhook.deleted:
            raise NotFound(f"there is no webhook {webhook_id}: it was deleted")
        return webhook


def _check_url(url: str) -> None:
    """http or https with a host; no credentials, which `GET /v1/webhooks` would show."""
    refusal = NotAllowed("a webhook URL is an http:// or https:// address with a host and no "
                         f"credentials, at most {URL_LENGTH_MAX} characters")
    try:
        parts = urlsplit(url)
        _ = parts.port  # a malformed port raises ValueError
    except ValueError:
        raise refusal from None
    if url != url.strip() or parts.scheme not in ("http", "https") or not parts.hostname \
            or len(url) > URL_LENGTH_MAX or parts.username or parts.password:
        raise refusal
