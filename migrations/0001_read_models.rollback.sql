DROP TABLE disputes;
DROP TABLE shuffles;
DROP TABLE deal_events;
DROP TABLE deals;
DROP TABLE postings;
DROP TABLE accounts;
DROP TABLE tracking;
