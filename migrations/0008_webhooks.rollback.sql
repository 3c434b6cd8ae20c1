DROP TABLE webhook_deliveries;
DROP TABLE webhook_event_types;
DROP TABLE webhooks;
