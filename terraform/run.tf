# Cloud Run v2: the API (behind the load balancer) and one service per worker (no public ingress).
# One image; each service picks its entry point with command/args.

locals {
  # Every environment variable the app reads in gcp mode (tests/terraform checks it against Settings).
  common_env = {
    BACKEND                     = "gcp"
    GOOGLE_CLOUD_PROJECT        = var.project_id
    HOST                        = "0.0.0.0"
    PUBLIC_BASE_URL             = local.public_base_url
    FIRESTORE_DATABASE          = google_firestore_database.main.name
    SIGNALS_TOPIC               = google_pubsub_topic.signal_events.name
    GENERATION_TOPIC            = google_pubsub_topic.generation_jobs.name
    MAIL_TOPIC                  = google_pubsub_topic.mail.name
    CLOUD_TASKS_LOCATION        = var.region
    CLOUD_TASKS_QUEUE           = google_cloud_tasks_queue.deliveries.name
    CLOUD_TASKS_SERVICE_ACCOUNT = google_service_account.invoker.email
    BLOBS_BUCKET                = google_storage_bucket.images.name
    BLOBS_PUBLIC_BASE_URL       = "${local.public_base_url}/assets"
    CDN_URL_MAP                 = google_compute_url_map.https.name
    AUTHOR_MODEL                = var.author_model
    AUTHOR_MODEL_NAME           = var.author_model_name
    AUTHOR_BASE_URL             = var.author_base_url
    IMAGE_MODEL                 = var.image_model
    VERTEX_LOCATION             = var.region
    OAUTH_ISSUER                = var.oauth_issuer
    STAFF_EMAIL_DOMAINS         = jsonencode(var.staff_email_domains)
    STAFF_EMAILS                = jsonencode(var.staff_emails)
    STAFF_PAGES_PARTNER         = var.staff_pages_partner
    OAUTH_STAFF_CLAIM           = var.oauth_staff_claim
    PUSH_OIDC_AUDIENCE          = local.push_audience
    PUSH_SERVICE_ACCOUNT        = google_service_account.invoker.email
    LOG_LEVEL                   = "INFO"
    BEACON_CONSENT              = var.beacon_consent
    # Adaptive experiments on landing pages (content-api.md "Experiments").
    EXPERIMENT_MIN_SHARE            = tostring(var.experiment_min_share)
    EXPERIMENT_RECOMPUTE_SECONDS    = tostring(var.experiment_recompute_seconds)
    EXPERIMENT_AUTO_STOP            = tostring(var.experiment_auto_stop)
    EXPERIMENT_STOP_PROBABILITY     = tostring(var.experiment_stop_probability)
    EXPERIMENT_STOP_MIN_CONVERSIONS = tostring(var.experiment_stop_min_conversions)
  }
  # Secret Manager secrets each service may read, as environment variables.
  # WEBHOOK_SECRETS_KEY seals webhook signing secrets in Firestore: every service opens the store.
  api_secrets        = ["CONTENT_API_KEY", "SIGNALS_API_KEY", "INGEST_API_KEY", "INTERNAL_TOKEN", "PREVIEW_SECRET", "AUTHOR_API_KEY", "WEBHOOK_SECRETS_KEY"]
  generation_secrets = ["INTERNAL_TOKEN", "PREVIEW_SECRET", "AUTHOR_API_KEY", "WEBHOOK_SECRETS_KEY"]
  ingest_secrets     = ["INTERNAL_TOKEN", "PREVIEW_SECRET", "WEBHOOK_SECRETS_KEY"]
  functions_source   = "frontdoor/functions.py"
  # One Cloud Run service per functions-framework target (frontdoor/functions.py), each with
  # its own service account, secrets and sizing; none has public ingress.
  workers = {
    generation = {
      name            = "frontdoor-generation"
      target          = "generate_page"
      service_account = google_service_account.generation.email
      secrets         = local.generation_secrets
      # A job waits on the model for up to a minute; few at a time keeps memory flat.
      concurrency   = 4
      timeout       = "600s"
      max_instances = var.worker_max_instances
      cpu           = "1"
      memory        = "1Gi"
    }
    generation_dead_letter = {
      name            = "frontdoor-generation-dead-letter"
      target          = "generation_dead_letter"
      service_account = google_service_account.generation.email
      secrets         = local.generation_secrets
      concurrency     = 80
      timeout         = "300s"
      max_instances   = 2
      cpu             = "1"
      memory          = "512Mi"
    }
    ingest = {
      name            = "frontdoor-ingest"
      target          = "ingest_signals"
      service_account = google_service_account.ingest.email
      secrets         = local.ingest_secrets
      concurrency     = 40
      timeout         = "300s"
      max_instances   = var.worker_max_instances
      cpu             = "1"
      memory          = "512Mi"
    }
  }
  # Pub/Sub signs push tokens for this audience; the workers accept it (custom_audiences) and
  # check it again themselves (frontdoor/push_auth.py).
  push_audience = "frontdoor-push"
}

resource "google_cloud_run_v2_service" "api" {
  name     = "frontdoor-api"
  location = var.region
  # Only the load balancer (and Google's internal callers: Cloud Tasks) reach the API.
  ingress    = "INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER"
  depends_on = [google_project_service.apis, google_secret_manager_secret_version.initial]

  template {
    service_account                  = google_service_account.api.email
    max_instance_request_concurrency = 80

    scaling {
      min_instance_count = var.api_min_instances
      max_instance_count = var.api_max_instances
    }

    containers {
      image   = var.image
      command = ["frontdoor"]
      args    = ["serve"]

      ports {
        container_port = 8080
      }

      resources {
        limits = {
          cpu    = "2"
          memory = "1Gi"
        }
      }

      dynamic "env" {
        for_each = merge(local.common_env, { INTERNAL_BASE_URL = "" })
        content {
          name  = env.key
          value = env.value
        }
      }

      dynamic "env" {
        for_each = toset(local.api_secrets)
        content {
          name = env.value
          value_source {
            secret_key_ref {
              secret  = google_secret_manager_secret.app[env.value].secret_id
              version = "latest"
            }
          }
        }
      }

      startup_probe {
        http_get {
          path = "/healthz"
        }
      }

      liveness_probe {
        http_get {
          path = "/healthz"
        }
      }
    }
  }
}

resource "google_cloud_run_v2_service" "worker" {
  for_each         = local.workers
  name             = each.value.name
  location         = var.region
  ingress          = "INGRESS_TRAFFIC_INTERNAL_ONLY"
  custom_audiences = [local.push_audience]
  depends_on       = [google_project_service.apis, google_secret_manager_secret_version.initial]

  template {
    service_account                  = each.value.service_account
    max_instance_request_concurrency = each.value.concurrency
    timeout                          = each.value.timeout

    scaling {
      min_instance_count = 0
      max_instance_count = each.value.max_instances
    }

    containers {
      image   = var.image
      command = ["functions-framework"]
      args    = ["--source=${local.functions_source}", "--target=${each.value.target}", "--signature-type=cloudevent"]

      resources {
        limits = {
          cpu    = each.value.cpu
          memory = each.value.memory
        }
      }

      dynamic "env" {
        for_each = merge(local.common_env, { INTERNAL_BASE_URL = google_cloud_run_v2_service.api.uri })
        content {
          name  = env.key
          value = env.value
        }
      }

      dynamic "env" {
        for_each = toset(each.value.secrets)
        content {
          name = env.value
          value_source {
            secret_key_ref {
              secret  = google_secret_manager_secret.app[env.value].secret_id
              version = "latest"
            }
          }
        }
      }
    }
  }
}
