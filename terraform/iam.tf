# One service account per service, each with only the roles it needs.

resource "google_service_account" "api" {
  account_id   = "frontdoor-api"
  display_name = "frontdoor API (Cloud Run)"
}

resource "google_service_account" "generation" {
  account_id   = "frontdoor-generation"
  display_name = "frontdoor generation worker"
}

resource "google_service_account" "ingest" {
  account_id   = "frontdoor-ingest"
  display_name = "frontdoor signal ingest worker"
}

# Identity in the OIDC tokens that Pub/Sub push and Cloud Tasks attach; it may only invoke.
resource "google_service_account" "invoker" {
  account_id   = "frontdoor-invoker"
  display_name = "frontdoor push and task invoker"
}

locals {
  runtime_accounts = {
    api        = google_service_account.api.email
    generation = google_service_account.generation.email
    ingest     = google_service_account.ingest.email
  }
}

# Firestore reads and writes: every runtime service.
resource "google_project_iam_member" "datastore_user" {
  for_each = local.runtime_accounts
  project  = var.project_id
  role     = "roles/datastore.user"
  member   = "serviceAccount:${each.value}"
}

# Structured logs and metrics: every runtime service.
resource "google_project_iam_member" "log_writer" {
  for_each = local.runtime_accounts
  project  = var.project_id
  role     = "roles/logging.logWriter"
  member   = "serviceAccount:${each.value}"
}

# Deliveries (webhooks, job callbacks) are enqueued by the API, the generation worker
# (callbacks) and the ingest worker (webhooks); each also acts as the invoker account so
# Cloud Tasks can attach its OIDC token.
resource "google_cloud_tasks_queue_iam_member" "enqueuer" {
  for_each = local.runtime_accounts
  name     = google_cloud_tasks_queue.deliveries.name
  location = var.region
  role     = "roles/cloudtasks.enqueuer"
  member   = "serviceAccount:${each.value}"
}

resource "google_service_account_iam_member" "act_as_invoker" {
  for_each           = local.runtime_accounts
  service_account_id = google_service_account.invoker.name
  role               = "roles/iam.serviceAccountUser"
  member             = "serviceAccount:${each.value}"
}

# The API publishes generation jobs and signal events.
resource "google_pubsub_topic_iam_member" "api_publishes" {
  for_each = {
    generation = google_pubsub_topic.generation_jobs.name
    signals    = google_pubsub_topic.signal_events.name
  }
  topic  = each.value
  role   = "roles/pubsub.publisher"
  member = "serviceAccount:${google_service_account.api.email}"
}

# The generation worker writes hero images; nobody else writes to the bucket.
resource "google_storage_bucket_iam_member" "generation_writes_images" {
  bucket = google_storage_bucket.images.name
  role   = "roles/storage.objectUser"
  member = "serviceAccount:${google_service_account.generation.email}"
}

# Gemini and Imagen on Vertex AI, only when chosen.
resource "google_project_iam_member" "generation_vertex" {
  count   = var.author_model == "gemini" || var.image_model == "imagen" ? 1 : 0
  project = var.project_id
  role    = "roles/aiplatform.user"
  member  = "serviceAccount:${google_service_account.generation.email}"
}

# CDN purge: only urlMaps.invalidateCache, for the services that change pages.
resource "google_project_iam_custom_role" "cdn_purger" {
  role_id     = "frontdoorCdnPurger"
  title       = "frontdoor CDN purger"
  description = "Invalidate cached landing pages after a change."
  permissions = ["compute.urlMaps.get", "compute.urlMaps.invalidateCache"]
}

resource "google_project_iam_member" "cdn_purge" {
  for_each = {
    api        = google_service_account.api.email
    generation = google_service_account.generation.email
  }
  project = var.project_id
  role    = google_project_iam_custom_role.cdn_purger.id
  member  = "serviceAccount:${each.value}"
}

# Sign-in codes go to the operators' mailer through the mail topic (DESIGN: the mail port).
resource "google_pubsub_topic_iam_member" "api_sends_mail" {
  topic  = google_pubsub_topic.mail.name
  role   = "roles/pubsub.publisher"
  member = "serviceAccount:${google_service_account.api.email}"
}

# Pub/Sub push and Cloud Tasks may invoke the workers and the API's internal route.
resource "google_cloud_run_v2_service_iam_member" "invoker" {
  for_each = merge(
    { api = google_cloud_run_v2_service.api.name },
    { for key, worker in google_cloud_run_v2_service.worker : key => worker.name },
  )
  name     = each.value
  location = var.region
  role     = "roles/run.invoker"
  member   = "serviceAccount:${google_service_account.invoker.email}"
}

# The Pub/Sub service agent signs push OIDC tokens as the invoker ...
resource "google_service_account_iam_member" "pubsub_mints_tokens" {
  service_account_id = google_service_account.invoker.name
  role               = "roles/iam.serviceAccountTokenCreator"
  member             = local.pubsub_agent
}

# ... and moves undeliverable messages to the dead letter topics.
resource "google_pubsub_topic_iam_member" "pubsub_dead_letters" {
  for_each = {
    generation = google_pubsub_topic.generation_jobs_dead_letter.name
    signals    = google_pubsub_topic.signal_events_dead_letter.name
  }
  topic  = each.value
  role   = "roles/pubsub.publisher"
  member = local.pubsub_agent
}

resource "google_pubsub_subscription_iam_member" "pubsub_acks_source" {
  for_each = {
    generation = google_pubsub_subscription.generation_jobs.name
    signals    = google_pubsub_subscription.signal_events.name
  }
  subscription = each.value
  role         = "roles/pubsub.subscriber"
  member       = local.pubsub_agent
}
