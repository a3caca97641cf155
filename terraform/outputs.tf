output "load_balancer_ip" {
  description = "Point the domain's A record here; the managed certificate is issued once it resolves."
  value       = google_compute_global_address.site.address
}

output "public_base_url" {
  description = "The service's public origin."
  value       = local.public_base_url
}

output "api_service_url" {
  description = "The API's Cloud Run URL (reachable only through the load balancer and Google's internal callers)."
  value       = google_cloud_run_v2_service.api.uri
}

output "image_repository" {
  description = "Push the image here: REGION-docker.pkg.dev/PROJECT/frontdoor."
  value       = "${var.region}-docker.pkg.dev/${var.project_id}/${google_artifact_registry_repository.images.repository_id}"
}

output "images_bucket" {
  description = "The hero image bucket."
  value       = google_storage_bucket.images.name
}

output "secrets" {
  description = "Secret Manager secret ids; read a bootstrap key with `gcloud secrets versions access latest --secret=ID`."
  value       = { for name, secret in google_secret_manager_secret.app : name => secret.secret_id }
}

output "service_accounts" {
  description = "The runtime service accounts."
  value = {
    api        = google_service_account.api.email
    generation = google_service_account.generation.email
    ingest     = google_service_account.ingest.email
    invoker    = google_service_account.invoker.email
  }
}
