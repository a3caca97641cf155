"""Google Cloud adapters: Firestore, Pub/Sub, Cloud Storage, Cloud Tasks, Cloud CDN, Secret Manager."""
