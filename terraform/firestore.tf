# The Firestore database. Its composite indexes and TTL policies live in
# firestore_indexes.tf.json, generated from domain/indexes.py by
# `frontdoor terraform-indexes` (a test keeps the two equal).

resource "google_firestore_database" "main" {
  name                              = "(default)"
  location_id                       = var.firestore_location
  type                              = "FIRESTORE_NATIVE"
  concurrency_mode                  = "PESSIMISTIC"
  point_in_time_recovery_enablement = "POINT_IN_TIME_RECOVERY_ENABLED"
  delete_protection_state           = "DELETE_PROTECTION_ENABLED"
  deletion_policy                   = "ABANDON"
  depends_on                        = [google_project_service.apis]
}
