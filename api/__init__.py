"""HTTP interface: Flask app factory, schemas and one blueprint per resource."""
