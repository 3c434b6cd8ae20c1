"""The `pontoon` console command."""
