"""Google Cloud adapters: Firestore, Pub/Sub, Cloud Storage, Cloud Tasks, CDN, Secret Manager."""
