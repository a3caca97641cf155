# Secret Manager holds the bootstrap keys and service secrets; Cloud Run reads them as
# environment variables. Terraform creates each with a random first version; rotate with
# `gcloud secrets versions add NAME --data-file=-` and a new revision.

locals {
  secret_names = toset(["CONTENT_API_KEY", "SIGNALS_API_KEY", "INGEST_API_KEY", "INTERNAL_TOKEN", "PREVIEW_SECRET", "AUTHOR_API_KEY", "WEBHOOK_SECRETS_KEY"])
}

resource "google_secret_manager_secret" "app" {
  for_each  = local.secret_names
  secret_id = "frontdoor-${lower(replace(each.value, "_", "-"))}"

  replication {
    auto {}
  }

  depends_on = [google_project_service.apis]
}

resource "random_password" "initial" {
  for_each = local.secret_names
  length   = 48
  special  = false
}

# The first version only; later versions are added out of band, so Terraform ignores them.
resource "google_secret_manager_secret_version" "initial" {
  for_each    = local.secret_names
  secret      = google_secret_manager_secret.app[each.value].id
  secret_data = random_password.initial[each.value].result

  lifecycle {
    ignore_changes = [secret_data]
  }
}

resource "google_secret_manager_secret_iam_member" "api_reads" {
  for_each  = toset(local.api_secrets)
  secret_id = google_secret_manager_secret.app[each.value].id
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.api.email}"
}

resource "google_secret_manager_secret_iam_member" "generation_reads" {
  for_each  = toset(local.generation_secrets)
  secret_id = google_secret_manager_secret.app[each.value].id
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.generation.email}"
}

resource "google_secret_manager_secret_iam_member" "ingest_reads" {
  for_each  = toset(local.ingest_secrets)
  secret_id = google_secret_manager_secret.app[each.value].id
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${google_service_account.ingest.email}"
}
